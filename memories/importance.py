"""Importance 1-10 of a memory row, by the kind of event (the seeds' scale: 1-2 routine, 3-4
minor, 5-6 notable, 7-8 significant, 9-10 pivotal). Reflections are scored by the model. Pure."""

BY_KIND = {
    "action": 2,
    "action_fail": 2,
    "heard": 4,
    "observed": 2,
    "seen": 2,
    "examined": 3,
    "rung": 9,
    "reflection": 6,
    "bulletin": 5,
    "cue": 3,
    "suspicion": 5,
    "presence": 7,
    "violence": 9,
    "sleep": 1,
}


def importance_of(kind: str, *, alien: bool = False, killing: bool = False, shout: bool = False) -> int:
    if killing:
        return 10
    if alien:
        return 8
    if shout:
        return 5
    return BY_KIND.get(kind, 3)
