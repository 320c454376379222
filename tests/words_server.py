"""A prompt-sensitive model on 127.0.0.1: every answer is a function of the prompt's words, as a real
model's is, so two prompts that differ by one byte get different answers and the runs part.

Its agents act on what their prompt shows: they walk out by the ways out it lists, examine the
items it lists, and talk about what it shows them — a recalled memory, a person here, an item, the
room — so their streams fill with the names recall searches for, and recall has rows to find.
Its writing (reflections, summaries, dreams, the bulletin) quotes the prompt's own words.

    with WordsServer() as server:   # server.base_url is the /v1 URL; server.records, every request
"""
from __future__ import annotations

import hashlib
import json
import random
import re

from voyage.bench.fake_openai_server import FakeOpenAI, messages_digest, person_named, wants_json


def seeded(messages: list[dict]) -> random.Random:
    """A generator seeded by the whole prompt, byte for byte."""
    return random.Random(int(messages_digest(messages)[:16], 16))


def last_listed(pattern: str, text: str) -> list[str]:
    """The names of the last line of the prompt matching `pattern` (its list group), in order."""
    found = re.findall(pattern, text, re.M)
    return [n.strip() for n in found[-1].split(", ") if n.strip()] if found else []


def shown(user: str) -> dict:
    """What the prompt shows the agent now: ways out, items, people, the recalled memories."""
    people = re.findall(r"^People here: (.+)\.$", user, re.M)
    recalled = user.split("Older memories this place and these people bring back:\n", 1)
    return {
        "exits": last_listed(r"^Ways out: (.+)\.$", user),
        "items": last_listed(r"^(?:Items here|\d+ indistinct objects): (.+)\.$", user),
        "people": [person_named(p) for p in people[-1].split("; ")] if people else [],
        "recalled": [line for line in recalled[1].split("\n") if line.startswith("[")][:4] if len(recalled) > 1 else [],
        "room": (re.findall(r"^You are in the (.+?) \(", user, re.M) or ["room"])[-1],
    }


def action(kind, target=None, dialogue="", thought="", volume=None) -> dict:
    return {"action_type": kind, "target_character": target, "volume": volume, "dialogue": dialogue,
            "duration_minutes": 3, "internal_monologue": thought}


def words_action(messages: list[dict]) -> dict:
    """Walk, examine or talk about what the prompt shows, drawn by the prompt's own words."""
    rng = seeded(messages)
    now = shown(messages[-1]["content"] if messages else "")
    roll = rng.random()
    if now["exits"] and roll < 0.3:
        return action("move", rng.choice(now["exits"]), thought=f"Out of the {now['room']}.")
    if now["items"] and roll < 0.55:
        return action("interact", rng.choice(now["items"]), thought=f"What is this, in the {now['room']}?")
    return action("communicate", rng.choice(now["people"]) if now["people"] and roll < 0.7 else None,
                  talk(rng, now), thought="Say what I see.", volume="normal")


def talk(rng: random.Random, now: dict) -> str:
    """A line about something the prompt shows: a recalled memory first, when it has one."""
    if now["recalled"] and rng.random() < 0.6:
        memory = re.sub(r"^\[[^\]]*\] ", "", rng.choice(now["recalled"]))
        return "I remember this: " + " ".join(memory.split()[:12])
    subjects = now["items"] + now["people"] + [now["room"]]
    return f"Look at the {rng.choice(subjects)}, here in the {now['room']}."


def words_prose(messages: list[dict]) -> str:
    """A few of the prompt's own words, drawn by the prompt (for reflections, summaries, dreams)."""
    words = re.findall(r"[A-Za-z]{4,}", " ".join(str(m.get("content", "")) for m in messages))
    rng = seeded(messages)
    picked = " ".join(rng.choice(words) for _ in range(8)) if words else "nothing"
    system = messages[0]["content"] if messages else ""
    return ("[reflection] " if "[reflection]" in system else "") + f"I keep thinking of {picked}."


class WordsServer(FakeOpenAI):
    """FakeOpenAI's protocol, latencies and records; answers drawn from the prompt's words."""

    def __init__(self, **options):
        super().__init__(**options)
        self.httpd.handle_error = lambda request, address: None  # a killed client's reset connection

    def _content(self, body: dict, fault: str | None) -> str:
        messages = body.get("messages", [])
        return json.dumps(words_action(messages)) if wants_json(body) else words_prose(messages)


def prompt_sha256(messages) -> str:
    """A prompt's hash, as the tests compare them."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
