"""The offline model's answers to the memory purposes (compaction, era folding, dreams, diary,
trust, importance). Deterministic, built only from the rows and facts its request hints carry —
which are the ones its prompt shows — so it can never leak what the agent was not given."""
from __future__ import annotations

import json
import random

from voyage.gateway.hints import RowsHints, TrustHints
from voyage.gateway.offline_interview import interview
from voyage.gateway.offline_survey import survey
from world.time import sim_clock, time_of_day

# Words that make the trust writer think worse of someone; the scenario's phrasebook adds its own
# (hostile_phrases: what its people shout when they feel wronged).
HOSTILE = ("attack", "strikes", "kill", "not who they claim", "do not trust", "dead")
FRIENDLY = ("at your service", "approaches you", "good day", "says to you", "introduced", "belong together")
JUDGED = ("ally", "rival", "suspect", "acquaintance")  # the labels this writer gives; any other is a bond


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _striking(rows, n: int) -> list[str]:
    """The n most important rows (latest first among equals), each clipped."""
    ranked = sorted(rows, key=lambda r: (-r[2], -r[0]))[:n]
    return [_clip(r[3], 140) for r in ranked]


def compaction(rng: random.Random, h: RowsHints) -> str:
    if not h.rows:
        return "Nothing worth keeping."
    first, last = h.rows[0][0], h.rows[-1][0]
    kinds = {}
    for _, kind, _, _ in h.rows:
        kinds[kind] = kinds.get(kind, 0) + 1
    tally = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))[:4])
    moments = " / ".join(_striking(h.rows, 2))
    return _clip(f"{sim_clock(first)} to {time_of_day(last)}: {len(h.rows)} moments ({tally}). Most striking: {moments}", 480)


def era(rng: random.Random, h: RowsHints) -> str:
    if not h.rows:
        return "An era of nothing."
    first, last = h.rows[0][0], h.rows[-1][0]
    parts = [_clip(r[3].split(". Most striking: ")[-1], 400 // max(len(h.rows), 1)) for r in h.rows]
    return _clip(f"The era up to {sim_clock(last)} (from {sim_clock(first)}): " + " | ".join(parts), 520)


def dream(rng: random.Random, h: RowsHints) -> str:
    who = h.subject or "The sleeper"
    striking = _striking(h.rows, 2)
    identity = (f"{who} believes they are {who if h.subject else 'nobody they can name'}, and wants above all "
                f"to keep their cover. What stays with them: {' / '.join(striking) or 'very little'}")
    places = (f"{who} knows these rooms: {', '.join(h.rooms)}." if h.rooms else f"{who} knows no room by name yet.")
    allies = [n for n, label, score in h.people if score > 0.2 or label in ("spouse", "ally")]
    wary = [n for n, label, score in h.people if score < -0.2 or label in ("suspect", "rival")]
    people = (f"{who} trusts {', '.join(allies) or 'no one'}; suspects {', '.join(wary) or 'no one in particular'}."
              if h.people else f"{who} knows no one well enough to trust or suspect.")
    return json.dumps({"identity": _clip(identity, 420), "places": _clip(places, 360), "people": _clip(people, 300)},
                      ensure_ascii=False)


def diary(rng: random.Random, h: RowsHints) -> str:
    kinds = {k for _, k, _, _ in h.rows}
    mood = ("shaken" if "violence" in kinds else "wary" if "suspicion" in kinds
            else "sociable" if sum(k == "heard" for _, k, _, _ in h.rows) > 5 else "uneasy")
    moments = " ".join(_striking(h.rows, 2))
    entry = f"I end the day in the {h.location or 'dark'}, {mood}. What I keep turning over: {moments or 'nothing'}"
    return json.dumps({"mood": mood, "entry": _clip(entry, 500)}, ensure_ascii=False)


def trust(rng: random.Random, h: TrustHints, hostile: tuple[str, ...] = ()) -> str:
    verdicts = {}
    for name, label, score, count, lines in h.others:
        text = " ".join(lines).lower()
        delta = 0.15 * sum(w in text for w in FRIENDLY) - 0.35 * sum(w in text for w in HOSTILE + tuple(hostile))
        new = max(-1.0, min(1.0, round(0.7 * score + delta + min(count, 10) * 0.01, 3)))
        if label not in JUDGED and new > -0.5:  # a bond (spouse, or the world's word for a room-mate) holds
            new_label = label
        else:
            new_label = "ally" if new >= 0.35 else "rival" if new <= -0.7 else "suspect" if new <= -0.3 else "acquaintance"
        tone = "warm" if new >= 0.35 else "cold" if new <= -0.3 else "guarded"
        because = _clip(lines[-1], 160) if lines else f"{count} brief meetings"
        verdicts[name] = {"score": new, "label": new_label, "emotional_tone": tone, "rationale": f"Because: {because}"}
    return json.dumps(verdicts, ensure_ascii=False)


def importance(rng: random.Random, h: RowsHints) -> str:
    text = " ".join(r[3] for r in h.rows).lower()
    score = 5 + 2 * any(w in text for w in ("kill", "dead", "attack")) + any(w in text for w in ("secret", "fear", "alien"))
    return str(min(score, 10))


WRITERS = {"compaction": compaction, "era": era, "dream": dream, "diary": diary, "trust": trust,
           "importance": importance, "interview": interview, "survey": survey}
