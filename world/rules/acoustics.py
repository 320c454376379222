"""The acoustic matrix: who receives what when someone speaks. Pure.

Room scale (small | vast) and ambient noise (low | high) decide routing:

| scale | volume  | target      | bystanders                      |
|-------|---------|-------------|---------------------------------|
| small | any     | HEARD       | HEARD                           |
| vast  | shout   | HEARD       | HEARD                           |
| vast  | normal  | HEARD       | OBSERVED (no content)           |
| vast  | whisper | HEARD       | WHISPERED ("X whispered to Y")  |

What ambient noise changes (the Voyage rule, documented in the README):
- A *high*-noise room masks whispers: even in a small room a whisper reaches only its target and
  bystanders see only that a whisper passed (as in a vast room).
- A shout carries through the doorways into every adjacent *low*-noise room: its occupants receive
  SHOUT_NEARBY (that someone shouted next door, with no content). Noisy rooms swallow it.
Sleepers hear nothing but a shout (a shout in their room, or one from next door).
Normal speech or a whisper with no target in a vast room reaches nobody's ears: everyone else only
OBSERVES it (a shout is HEARD by all, target or not).
"""
from __future__ import annotations

from dataclasses import dataclass

HEARD = "HEARD"
OBSERVED = "OBSERVED"
WHISPERED = "WHISPERED"
SHOUT_NEARBY = "SHOUT_NEARBY"
CARRIES_CONTENT = {HEARD}


@dataclass(frozen=True)
class Listener:
    agent_id: int
    asleep: bool = False


@dataclass(frozen=True)
class Delivery:
    agent_id: int
    mode: str


def bystander_mode(scale: str, ambient_noise: str, volume: str, targeted: bool) -> str:
    """What a listener other than the target receives, in the speaker's room."""
    if volume == "whisper":
        if scale == "small" and ambient_noise == "low":
            return HEARD
        return WHISPERED if targeted else OBSERVED
    if scale == "small" or volume == "shout":
        return HEARD
    return OBSERVED


def route_speech(
    *,
    scale: str,
    ambient_noise: str,
    volume: str,
    speaker_id: int,
    target_id: int | None,
    present: list[Listener],
    next_door: list[tuple[str, list[Listener]]] = (),
) -> list[Delivery]:
    """Deliveries for one utterance. `present` is everyone in the room (the speaker is skipped);
    `next_door` pairs each adjacent room's ambient noise with its occupants."""
    deliveries: list[Delivery] = []
    for listener in present:
        if listener.agent_id == speaker_id:
            continue
        mode = HEARD if listener.agent_id == target_id else bystander_mode(scale, ambient_noise, volume, target_id is not None)
        if listener.asleep and volume != "shout":
            continue
        deliveries.append(Delivery(listener.agent_id, mode))
    if volume == "shout":
        for noise, occupants in next_door:
            if noise != "low":
                continue
            deliveries.extend(Delivery(l.agent_id, SHOUT_NEARBY) for l in occupants)
    return deliveries
