"""A scenario's voice and phrasebook, declared once here (key, named placeholders, neutral default,
one-line help) and used by the file format's checks, the engine, the offline policy, the admin's
help text and the docs.

- `voice:` every sentence the engine writes into an agent's memory, an event or a prompt that
  describes the world (the wind-down, nightfall, the bulletin, sharing a room...).
- `phrasebook:` the lines of the offline scripted policy (voyage/gateway/offline.py): what its
  people say, think and shout. Most entries are lists: the policy picks one line with the run's
  seeded draws, so the same seed and the same file give the same transcript.

A scenario file gives any of these under its key; one it leaves out is the neutral default below,
which names no setting. A text may use only its own placeholders, written `{name}`; `{{` and `}}`
write a literal brace. Pure: no database.
"""
from __future__ import annotations

import string
from dataclasses import dataclass

VOICE_KEY, PHRASEBOOK_KEY = "voice", "phrasebook"


@dataclass(frozen=True)
class VoiceText:
    key: str
    fields: tuple[str, ...]  # the placeholders it may use
    default: str | tuple[str, ...]  # a tuple: the entry is a list of lines, one picked at a time
    help: str

    @property
    def is_list(self) -> bool:
        return isinstance(self.default, tuple)


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
PHRASES = (
    VoiceText("openers_unnamed", (), (
        "Forgive me, do you know where we are? I cannot remember coming here.",
        "Have we met? Your face seems almost familiar.",
        "Is this place known to you? Nothing in it is known to me.",
        "Please, what day is it? I woke and could not think of my own name.",
        "Did you hear that just now?",
    ), "said in a normal voice by someone who does not know their own name yet"),
    VoiceText("openers_named", ("me",), (
        "Good day. {me}, at your service. Have you been here long?",
        "They say the weather will change by the end of the week.",
        "{me}. I do not believe we have been introduced, though I feel we ought to have been.",
        "Have you eaten today? I find I have no appetite at all.",
        "One hears such odd talk in the corridors. Do you believe any of it?",
    ), "said in a normal voice by someone who knows their name; {me}: that name"),
    VoiceText("shouts", (), (
        "Hello? Is anybody there?",
        "Who has been in my room?",
        "Somebody here is not who they claim to be!",
        "Help! Over here!",
    ), "shouted, to someone or to the room"),
    VoiceText("whispers", (), (
        "Do not trust the one by the door.",
        "I think I am not who they say I am.",
        "Meet me later, away from the others.",
        "Say nothing of what you saw.",
    ), "whispered to one person (the policy adds a code word)"),
    VoiceText("thoughts", (), (
        "I must not let them see how little I remember.",
        "Everyone here is watching everyone else.",
        "If I keep moving, nobody will ask me questions I cannot answer.",
        "That name means something. I am sure of it.",
        "Smile. Nod. Say as little as possible.",
    ), "private thoughts (internal_monologue)"),
    VoiceText("retire_thought", (), "Time to go back before night falls.",
              "thought on the way home after the wind-down"),
    VoiceText("stray_prose", (), "I think I shall go for a walk.",
              "a malformed answer of prose instead of JSON (only with a malformed rate)"),
    VoiceText("phantom_target", (), "the ghost of the last visitor",
              "a target that is nowhere, in a malformed answer (only with a malformed rate)"),
    VoiceText("bulletin_title", (), "The Morning Bulletin", "the offline bulletin's title"),
    VoiceText("bulletin_quiet", (), "The Morning Bulletin: a quiet day, they say; too quiet, say others.",
              "the offline bulletin after a day with no public facts"),
    VoiceText("hostile_phrases", (), ("who has been in my room",),
              "words that make the offline trust writer think worse of whoever said them (lower case)"),
)
BY_KEY = {t.key: t for t in TEXTS}
PHRASE_BY_KEY = {t.key: t for t in PHRASES}
SECTIONS = {VOICE_KEY: BY_KEY, PHRASEBOOK_KEY: PHRASE_BY_KEY}
LIMIT = 1000


def placeholders(text: str) -> list[str]:
    """The named fields a text uses. Raises ValueError on a malformed brace."""
    return [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]


def check_voice(value, path: str = VOICE_KEY) -> list[tuple[str, str, str]]:
    """(rule, key path, message) of each problem of a `voice:` or `phrasebook:` mapping (None or
    absent: all defaults)."""
    if value is None:
        return []
    if not isinstance(value, dict):
        return [("type", path, "expected a mapping of texts")]
    specs = SECTIONS[path.split(".")[0]]
    problems = []
    for key, text in value.items():
        sub = f"{path}.{key}"
        spec = specs.get(key)
        if spec is None:
            problems.append(("known keys", sub, f"unknown key (known here: {', '.join(specs)})"))
        elif spec.is_list:
            if not isinstance(text, list) or not text:
                problems.append(("type", sub, "expected a list of lines, at least one (leave the key out for the "
                                              "default)"))
                continue
            for i, line in enumerate(text):
                problems += _check_text(line, spec, f"{sub}[{i}]")
        else:
            problems += _check_text(text, spec, sub)
    return problems


def _check_text(text, spec: VoiceText, path: str) -> list[tuple[str, str, str]]:
    if not isinstance(text, str) or not text.strip():
        return [("type", path, "expected a text that is not empty (leave the key out for the default)")]
    if len(text) > LIMIT:
        return [("type", path, f"at most {LIMIT} characters (this has {len(text)})")]
    try:
        names = placeholders(text)
    except ValueError as exc:
        return [("placeholders", path, f"malformed placeholder: {exc} (write {{{{ and }}}} for a brace)")]
    known = ", ".join("{" + f + "}" for f in spec.fields) or "none"
    return [("placeholders", path, f"unknown placeholder {{{name}}} (this text may use: {known})")
            for name in names if name not in spec.fields]


def full_voice(stored: dict | None) -> dict[str, str]:
    """Every text of a voice: the stored ones, the defaults for the rest, in declaration order."""
    stored = stored or {}
    return {t.key: stored.get(t.key) or t.default for t in TEXTS}


def full_phrasebook(stored: dict | None) -> dict:
    """Every entry of a phrasebook, the stored ones or the defaults, lists as lists."""
    stored = stored or {}
    return {t.key: list(stored.get(t.key) or t.default) if t.is_list else stored.get(t.key) or t.default
            for t in PHRASES}


class Voice:
    """A scenario's texts, ready to say: `voice.say("nightfall_event", time="06:00")`."""

    def __init__(self, stored: dict | None = None):
        self.texts = full_voice(stored)

    def say(self, key: str, **fields) -> str:
        return self.texts[key].format(**fields)
