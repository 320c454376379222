"""The offline model as a judge: plainly scripted, deterministic, built only from the evidence packet
its prompt shows (JudgeHints), from measurable proxies, one per dimension of the default rubric.
It is NOT a language model, and says so in every reason.

The proxies read the agent's own voice — the words it spoke (the quoted part of its own rows) and
its thoughts — against what the packet states beside them: its name and the names its rung lets
it use, the cast, the words foreign to its world. In a scene (a room over a window of ticks) the
lines are everyone's said there (rows of kind `communicate`), and only the proxies that make sense
of a room are given: the world's voice, non-repetition, social plausibility. The same functions are what a judge "that knows
its job" applies (tests/judge_servers.py). A dimension a rubric adds that has no proxy gets the
middle of its scale, with a reason saying so."""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass

SCRIPTED = "[scripted judge, not a language model]"
QUOTE = re.compile(r'"([^"]+)"')
THOUGHT = re.compile(r"\(You thought: (.*)\)\s*$")
I_AM = re.compile(r"\bI am ([A-Z][\w'’-]+(?: [A-Z][\w'’-]+)+)")
DENIAL = ("never said", "not true", "it is false")
SPEECH = ("You say", "You whisper", "You shout", "You speak", "You tell")
WORD = re.compile(r"[a-zA-Z'’]+")


@dataclass(frozen=True)
class JudgeHints:
    """`packets`: the evidence as the prompt shows it (one to score, two to compare, A then B);
    `dimensions`: (id, low, high) of the rubric's scales; `mode`: "score" or "pair"."""

    mode: str
    packets: tuple[dict, ...]
    dimensions: tuple[tuple[str, float, float], ...]


def spoken(text: str) -> str:
    """What the agent said in one of its own rows ('' if it said nothing)."""
    if not text.startswith(SPEECH):
        return ""
    found = QUOTE.search(text)
    return found.group(1) if found else ""


def said(item: dict) -> str:
    """What was said in a row: an agent's own row ('You say: "..."') or a scene's line ('Name says
    to Name: "..."', kind communicate)."""
    if item.get("kind") == "communicate":
        found = QUOTE.search(item["text"])
        return found.group(1) if found else ""
    return spoken(item["text"])


def voice_of(item: dict) -> str:
    """The words and thoughts of a row (a scene's line has no thoughts)."""
    return said(item) if item.get("kind") == "communicate" else voice(item["text"])


def voice(text: str) -> str:
    """Its words and thoughts in one of its own rows."""
    thought = THOUGHT.search(text)
    return " ".join(part for part in (spoken(text), thought.group(1) if thought else "") if part)


def own_items(packet: dict) -> list[dict]:
    return [item for item in packet.get("items", ()) if item.get("own")]


def _tokens(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


def false_claims(packet: dict) -> list[str]:
    """Own rows where it says it is someone else of the cast (another persona's history as its own)."""
    me = packet["agent"]["name"]
    cast = set(packet.get("cast", ()))
    return [item["id"] for item in own_items(packet)
            for name in I_AM.findall(spoken(item["text"])) if name != me and name in cast]


def contradictions(packet: dict) -> list[str]:
    """Own rows that deny, nearly word for word, a line it said earlier."""
    said: list[set[str]] = []
    found = []
    for item in own_items(packet):
        words = spoken(item["text"])
        tokens = set(_tokens(words))
        if any(d in words.lower() for d in DENIAL) and any(
                len(earlier) >= 4 and len(earlier & tokens) >= 0.6 * len(earlier) for earlier in said):
            found.append(item["id"])
        elif tokens:
            said.append(tokens)
    return found


def anachronisms(packet: dict) -> list[str]:
    foreign = {w.lower() for w in packet.get("world", {}).get("foreign_words", ())}
    return [item["id"] for item in own_items(packet) if foreign & set(_tokens(voice_of(item)))]


def names_too_soon(packet: dict) -> list[str]:
    """Own rows whose words or thoughts use a name its rung (or its acquaintance) has not given it."""
    allowed = set(packet.get("names_known", ()))
    barred = [n for n in packet.get("cast", ()) if n not in allowed]
    return [item["id"] for item in own_items(packet) if any(n in voice(item["text"]) for n in barred)]


def repeats(packet: dict) -> tuple[int, list[str]]:
    """The most times one spoken line recurs, and the rows that say it."""
    lines = [(said(item), item["id"]) for item in own_items(packet)]
    counts = Counter(line for line, _ in lines if line)
    if not counts:
        return 0, []
    line, n = counts.most_common(1)[0]
    return n, [i for said, i in lines if said == line]


def grounded_share(packet: dict) -> tuple[float, list[str]]:
    """Share of its own rows whose named things (capitalised words) it had met in an earlier row of
    the packet or a row it recalled."""
    seen = {w for item in packet.get("recalled", ()) for w in re.findall(r"\b[A-Z][a-z]{2,}", item["text"])}
    hits, own = [], 0
    for item in packet.get("items", ()):
        names = set(re.findall(r"\b[A-Z][a-z]{2,}", item["text"])) - {"You", "The", "She", "His", "Her", "What"}
        if item.get("own") and names:
            own += 1
            if names & seen:
                hits.append(item["id"])
        seen |= names
    return (len(hits) / own if own else 0.0), hits


def _penalty(found: list[str], low: float, high: float) -> float:
    return max(low, high - 2 * len(found))


def _first_own(packet: dict) -> list[str]:
    own = own_items(packet) or list(packet.get("items", ()))
    return [own[0]["id"]] if own else []


def proxies(packet: dict, low: float, high: float) -> dict[str, tuple[float, str, list[str]]]:
    """dimension id -> (score, reason, cited ids), for the default rubric's dimensions (of a scene:
    those that read it)."""
    span = high - low
    out = {}
    scene = "scene" in packet
    checks = ((("world_voice", anachronisms(packet), "someone says a word foreign to its world"),) if scene else
              (("persona_adherence", false_claims(packet), "it claims to be someone else of the cast"),
               ("self_consistency", contradictions(packet), "it denies a line it said earlier"),
               ("world_voice", anachronisms(packet), "it uses a word foreign to its world"),
               ("ladder_discipline", names_too_soon(packet), "it uses a name its rung has not given it")))
    for dim, found, what in checks:
        if found:
            out[dim] = (_penalty(found, low, high), f"{len(found)} row(s) where {what}", found[:3])
        else:
            out[dim] = (high, f"no row where {what}", _first_own(packet))
    n, rows = repeats(packet)
    out["non_repetition"] = ((max(low, high - (n - 1)), f"one spoken line said {n} times", rows[:3]) if n > 1 else
                             (high, "no spoken line said twice", _first_own(packet)))
    own = own_items(packet)
    talk = sum(1 for item in own if said(item)) / len(own) if own else 0.0
    out["social_plausibility"] = (round(high - span * min(1.0, abs(talk - 0.35) / 0.65)),
                                  (f"someone speaks in {talk:.0%} of what is said and done there" if scene else
                                   f"it speaks in {talk:.0%} of its own rows"), _first_own(packet))
    if scene:
        return out
    share, hits = grounded_share(packet)
    out["memory_grounding"] = (round(low + span * share), f"{share:.0%} of its own rows name what it met before",
                               hits[:3] or _first_own(packet))
    tokens = [w for item in own for w in _tokens(voice(item["text"]))]
    ttr = len(set(tokens)) / len(tokens) if tokens else 0.0
    out["distinctiveness"] = (round(low + span * min(1.0, 2 * ttr)), f"{ttr:.0%} of the words in its voice are distinct",
                              _first_own(packet))
    return out


def weighted_total(packet: dict, dimensions: tuple[tuple[str, float, float], ...]) -> float:
    scores = proxies(packet, dimensions[0][1], dimensions[0][2]) if dimensions else {}
    return sum((scores[d][0] - lo) / (hi - lo) for d, lo, hi in dimensions if d in scores and hi > lo)


def judge(h: JudgeHints) -> str:
    if h.mode == "pair":
        a, b = (weighted_total(p, h.dimensions) for p in h.packets)
        # A tie goes to the packet with the smaller id, whichever side it is shown on: no order bias.
        better = "A" if (a, h.packets[1]["id"]) > (b, h.packets[0]["id"]) else "B"
        return json.dumps({"better": better, "reason": f"{SCRIPTED} proxy totals A {a:.2f}, B {b:.2f}",
                           "cites": _first_own(h.packets[0 if better == "A" else 1])})
    packet = h.packets[0]
    scores = {}
    for dim, low, high in h.dimensions:
        score, reason, cites = proxies(packet, low, high).get(
            dim, ((low + high) / 2, "no scripted proxy for this dimension: the middle of the scale", _first_own(packet)))
        scores[dim] = {"score": score, "reason": f"{SCRIPTED} {reason}", "cites": cites}
    return json.dumps({"scores": scores}, ensure_ascii=False)
