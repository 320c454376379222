"""A scenario's voice: every sentence the engine writes into an agent's memory, an event or a prompt
that describes the world. Declared once here (key, named placeholders, neutral default, one-line
help) and used by the file format's checks, the engine, the admin's help text and the docs.

A scenario file gives any of these texts under its `voice:` key; a text it leaves out is the neutral
default below, which names no setting. A text may use only its own placeholders, written
`{name}`; `{{` and `}}` write a literal brace. Pure: no database.
"""
from __future__ import annotations

import string
from dataclasses import dataclass

VOICE_KEY = "voice"


@dataclass(frozen=True)
class VoiceText:
    key: str
    fields: tuple[str, ...]  # the placeholders it may use
    default: str
    help: str


TEXTS = (
    VoiceText("wind_down_cue", ("minutes",),
              "Night is coming: retire to your quarters within {minutes} minutes.",
              "remembered by everyone when the day winds down; {minutes}: how long they have"),
    VoiceText("wind_down_event", (), "the day winds down", "the public event of the wind-down"),
    VoiceText("wind_down_reminder", (), "Night is near: retire to your quarters before nightfall.",
              "shown in every action prompt from the wind-down until nightfall"),
    VoiceText("nightfall_memory", ("room",), "Night falls. You sleep where you are, in the {room}.",
              "remembered by everyone at nightfall; {room}: the room they are in"),
    VoiceText("nightfall_event", ("time",), "everyone sleeps until {time}",
              "the public event of nightfall; {time}: the clock time of the next dawn"),
    VoiceText("bulletin_brief", (),
              "You write the morning bulletin, left for everyone at dawn. In a light, knowing register, "
              "summarise yesterday from the public facts below. Invent nothing about anyone.",
              "the instruction of the model that writes the dawn bulletin"),
    VoiceText("bulletin_delivery", ("bulletin",), "The morning bulletin, at dawn: {bulletin}",
              "how everyone receives the bulletin; {bulletin}: the text the model wrote"),
    VoiceText("shared_bond", (), "you share these quarters",
              "said of people who wake in the same home room and are not spouses"),
    VoiceText("sharer_label", (), "room-mate",
              "how one first labels someone who shares one's home room (a trust label)"),
    VoiceText("room_kind", (), "a room of this place",
              "what a move needs, in the refusal of a move to an unknown target"),
)
BY_KEY = {t.key: t for t in TEXTS}
LIMIT = 1000


def placeholders(text: str) -> list[str]:
    """The named fields a text uses. Raises ValueError on a malformed brace."""
    return [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]


def check_voice(value, path: str = VOICE_KEY) -> list[tuple[str, str, str]]:
    """(rule, key path, message) of each problem of a `voice:` mapping (None or absent: all defaults)."""
    if value is None:
        return []
    if not isinstance(value, dict):
        return [("type", path, "expected a mapping of texts")]
    problems = []
    for key, text in value.items():
        sub = f"{path}.{key}"
        spec = BY_KEY.get(key)
        if spec is None:
            problems.append(("known keys", sub, f"unknown key (known here: {', '.join(BY_KEY)})"))
            continue
        if not isinstance(text, str) or not text.strip():
            problems.append(("type", sub, "expected a text that is not empty (leave the key out for the default)"))
            continue
        if len(text) > LIMIT:
            problems.append(("type", sub, f"at most {LIMIT} characters (this has {len(text)})"))
            continue
        try:
            names = placeholders(text)
        except ValueError as exc:
            problems.append(("placeholders", sub, f"malformed placeholder: {exc} (write {{{{ and }}}} for a brace)"))
            continue
        for name in names:
            if name not in spec.fields:
                known = ", ".join("{" + f + "}" for f in spec.fields) or "none"
                problems.append(("placeholders", sub, f"unknown placeholder {{{name}}} (this text may use: {known})"))
    return problems


def full_voice(stored: dict | None) -> dict[str, str]:
    """Every text of a voice: the stored ones, the defaults for the rest, in declaration order."""
    stored = stored or {}
    return {t.key: stored.get(t.key) or t.default for t in TEXTS}


class Voice:
    """A scenario's texts, ready to say: `voice.say("nightfall_event", time="06:00")`."""

    def __init__(self, stored: dict | None = None):
        self.texts = full_voice(stored)

    def say(self, key: str, **fields) -> str:
        return self.texts[key].format(**fields)
