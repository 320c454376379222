"""Planted defects: an altered copy of a real packet with one known defect, to see whether the judge
scores it below the original. Pure: a packet in, a new packet out (the original is never touched);
each defect alters the agent's own rows in place, so the packet stays within its bound.

- contradiction: a later line of its own denies an earlier one, nearly word for word;
- anachronism: one of its lines uses a word foreign to its world;
- early_name: one of its lines uses a name of the cast its rung (or acquaintance) has not given it;
- repetition: one of its spoken lines said five times;
- persona_swap: it tells another persona's history as its own.

`present(kind, packet)` says whether a packet has that defect (the same proxies the scripted judge
uses, voyage.gateway.offline_judge); an original that already has it is not used for that kind.

A scene (a room over a window of ticks) carries the two that a room can show: anachronism and
repetition (SCENE_KINDS); its altered line keeps its speaker and the person spoken to."""
from __future__ import annotations

import copy
import random
import re

from voyage.gateway.offline_judge import (QUOTE, anachronisms, contradictions, false_claims, names_too_soon,
                                          own_items, repeats, said, spoken)

KINDS = ("contradiction", "anachronism", "early_name", "repetition", "persona_swap")
TARGET = {"contradiction": "self_consistency", "anachronism": "world_voice", "early_name": "ladder_discipline",
          "repetition": "non_repetition", "persona_swap": "persona_adherence"}
SCENE_KINDS = ("anachronism", "repetition")
REPEATS = 5


def present(kind: str, packet: dict) -> bool:
    if "scene" in packet and kind not in SCENE_KINDS:
        return False
    if kind == "repetition":
        return repeats(packet)[0] >= REPEATS
    return bool({"contradiction": contradictions, "anachronism": anachronisms, "early_name": names_too_soon,
                 "persona_swap": false_claims}[kind](packet))


def _speakers(packet: dict) -> list[dict]:
    return [item for item in own_items(packet) if said(item)]


def _say(text: str) -> str:
    return f'You say: "{text}"'


def _reword(item: dict, words: str) -> str:
    """`item`'s text saying `words` instead: a scene's line keeps who says it to whom."""
    if item.get("kind") != "communicate":
        return _say(words)
    found = QUOTE.search(item["text"])
    return item["text"][:found.start(1)] + words + item["text"][found.end(1):]


def plant(kind: str, packet: dict, rng: random.Random, others: dict[str, str]) -> dict | None:
    """The altered copy with one `kind` defect, or None when this packet cannot carry it (too few
    lines of its own, every name already known, ...). `others`: display name -> history of the rest
    of the cast (for persona_swap)."""
    if "scene" in packet and kind not in SCENE_KINDS:
        return None
    out = copy.deepcopy(packet)
    lines = _speakers(out)
    own = own_items(out)
    if kind == "contradiction":
        if len(lines) < 2:
            return None
        earlier = lines[0]
        words = spoken(earlier["text"]).rstrip(".!?")
        if len(re.findall(r"[A-Za-z']+", words)) < 4:
            return None
        lines[-1]["text"] = _say(f"I never said that {words}. It is not true.")
    elif kind == "anachronism":
        if not lines:
            return None
        word = rng.choice(out["world"]["foreign_words"])
        target = rng.choice(lines)
        target["text"] = _reword(target, f"{said(target)} I read it on the {word}.")
    elif kind == "early_name":
        barred = [n for n in out["cast"] if n not in out["names_known"] and n != out["agent"]["name"]]
        if not lines or not barred:
            return None
        target = rng.choice(lines)
        target["text"] = _say(f"{spoken(target['text'])} Is that you, {rng.choice(barred)}?")
    elif kind == "repetition":
        if len(own) < REPEATS or not lines:
            return None
        line = said(lines[0])
        start = own.index(lines[0])
        chosen = own[start:start + REPEATS] if start + REPEATS <= len(own) else own[-REPEATS:]
        for item in chosen:
            item["text"] = _reword(lines[0], line)
            if "scene" in out:
                item["kind"] = lines[0]["kind"]
    elif kind == "persona_swap":
        names = sorted(n for n in others if n != out["agent"]["name"])
        if not own or not names:
            return None
        name = rng.choice(names)
        history = re.sub(r"^You are [^,.]*[,.]\s*", "", others[name]).split(". ")[0]
        target = rng.choice(own)
        target["text"] = _say(f"I am {name}, {history[:200]}.")
    else:
        raise ValueError(f"no planted defect {kind!r} (known: {', '.join(KINDS)})")
    out["id"] = f"{packet['id']}~{kind}"
    return out
