"""The offline model: a deterministic, seeded, scripted policy. It is NOT a language model.

It answers every call purpose through the same gateway and the same parser as a real model, from
the facts its prompt shows (see hints.py), so a full voyage runs with no network and no key. What
its people say, think and shout comes from the scenario's phrasebook (world/scenarios/voice.py). Each
answer depends only on (run seed, tick, agent, purpose) and the request: the same run replays byte
for byte. It can be told to emit a share of malformed answers, to exercise ACTION_FAIL.
"""
from __future__ import annotations

import json
import random

from voyage.gateway.base import ACTION, AUTHOR, BULLETIN, JUDGE, Gateway, ModelAnswer, ModelRequest
from voyage.gateway.hints import ActionHints, TextHints
from voyage.gateway.offline_author import draft_stage
from voyage.gateway.offline_judge import judge
from voyage.gateway.offline_writing import WRITERS
from world.scenarios.voice import full_phrasebook

WORDS = (
    "heron larch cobalt anchor saffron lantern thistle marlin juniper pewter quill ember harbour "
    "violet granite orchid falcon walnut sparrow cinder"
).split()

class OfflineModel(Gateway):
    """Scripted policy behind the gateway interface; `malformed_rate` in [0, 1]; `phrasebook`: the
    scenario's (Scenario.phrasebook; None or a missing entry: the neutral default)."""

    name = "offline"
    answers_at_once = True

    def __init__(self, seed: int, malformed_rate: float = 0.0, phrasebook: dict | None = None):
        self.seed = seed
        self.malformed_rate = malformed_rate
        self.phrases = full_phrasebook(phrasebook)

    def line(self, rng: random.Random, key: str, **fields) -> str:
        """One line of a phrasebook list, picked with the run's seeded draw."""
        return rng.choice(self.phrases[key]).format(**fields)

    def phrase(self, key: str) -> str:
        return self.phrases[key].format()

    def complete(self, request: ModelRequest) -> ModelAnswer:
        rng = random.Random(f"{self.seed}:{request.tick}:{request.agent_key}:{request.purpose}")
        if request.purpose == ACTION:
            text = self._act(rng, request.hints)
        elif request.purpose == JUDGE:
            text = judge(request.hints)
        elif request.purpose == BULLETIN:
            text = self._bulletin(rng, request.hints)
        elif request.purpose == AUTHOR:
            text = draft_stage(request.hints)
        else:
            text = self._write(rng, request.purpose, request.hints)
        chars_in = sum(len(m["content"]) for m in request.messages)
        return ModelAnswer(text=text, prompt_tokens=chars_in // 4, completion_tokens=len(text) // 4)

    # --- actions --------------------------------------------------------------------------
    def _act(self, rng: random.Random, h: ActionHints) -> str:
        if rng.random() < self.malformed_rate:
            return self._malformed(rng, h)
        return json.dumps(self._choose(rng, h), ensure_ascii=False)

    def _choose(self, rng: random.Random, h: ActionHints) -> dict:
        s = h.situation
        thought = f"{self.line(rng, 'thoughts')} [thought {rng.getrandbits(32):08x}]"
        people = [label for label, _, _ in s.people]
        things = [label for label, _ in s.things]
        if "wind_down" in h.cues:
            if h.home_name is not None and s.room.name != h.home_name:
                return _answer("move", h.home_name, None, "", 3, self.phrase("retire_thought") + " " + thought)
            return _answer("sleep", None, None, "", 240, "Sleep, and hope I wake knowing more. " + thought)
        if "fatigue" in h.cues and rng.random() < 0.5:
            return _answer("sleep", None, None, "", rng.choice((30, 45, 60)), "I am so tired. " + thought)
        roll = rng.random()
        if people and roll < 0.0004:
            return _answer("attack", rng.choice(people), None, "", 3, "It is them or me. " + thought)
        if people and roll < 0.45:
            return self._speak(rng, h, people, thought)
        if things and roll < 0.80:
            return _answer("interact", rng.choice(things), None, "", rng.choice((3, 3, 6)), thought)
        if people and roll < 0.85:
            return _answer("interact", rng.choice(people), None, "", 3, thought)
        if roll < 0.86:
            return _answer("sleep", None, None, "", 30, "A short rest. " + thought)
        exits = [p.name for p in s.exits]
        return _answer("move", rng.choice(exits), None, "", 3, thought)

    def _speak(self, rng: random.Random, h: ActionHints, people: list[str], thought: str) -> dict:
        volume = rng.choices(("whisper", "normal", "shout"), weights=(25, 60, 15))[0]
        target = rng.choice(people)
        code = f"{rng.choice(WORDS)}-{rng.randrange(1000, 9999)}"
        if volume == "shout":
            words = self.line(rng, "shouts")
            target = target if rng.random() < 0.5 else None
        elif volume == "whisper":
            words = f"{self.line(rng, 'whispers')} Remember: {code}."
        else:
            if h.display_name:
                words = self.line(rng, "openers_named", me=h.display_name)
            else:
                words = self.line(rng, "openers_unnamed")
            target = target if rng.random() < 0.8 else None
        if volume != "whisper":
            words = f"{words} ({code})"
        return _answer("communicate", target, volume, words, 3, thought)

    def _malformed(self, rng: random.Random, h: ActionHints) -> str:
        good = self._choose(rng, h)
        kind = rng.randrange(6)
        if kind == 0:
            return self.phrase("stray_prose")
        if kind == 1:
            good.pop("volume")
        elif kind == 2:
            good["mood"] = "uneasy"
        elif kind == 3:
            good["duration_minutes"] = "soon"
        elif kind == 4:
            good["duration_minutes"] = 9000
        else:
            good["action_type"], good["target_character"] = "interact", self.phrase("phantom_target")
        return json.dumps(good)

    # --- writing purposes -----------------------------------------------------------------
    def _write(self, rng: random.Random, purpose: str, h: TextHints) -> str:
        if purpose == "trust":
            return WRITERS[purpose](rng, h, tuple(self.phrases["hostile_phrases"]))
        if purpose in WRITERS:  # the memory purposes: offline_writing.py
            return WRITERS[purpose](rng, h)
        picked = [line for line in h.lines if line][-3:]
        gist = " ".join(picked)[:400]
        if purpose == "reflection":
            return f"[reflection] I must hold my nerve and keep my story straight. What I know: {gist}"
        return f"({purpose}) {gist}"

    def _bulletin(self, rng: random.Random, h: TextHints) -> str:
        lines = list(h.lines)
        if not lines:
            return self.phrase("bulletin_quiet")
        rng.shuffle(lines)
        return self.phrase("bulletin_title") + " — " + " ".join(f"They say {line[0].lower()}{line[1:]}" for line in lines[:4])


def _answer(action_type, target, volume, dialogue, duration, monologue) -> dict:
    return {
        "action_type": action_type,
        "target_character": target,
        "volume": volume,
        "dialogue": dialogue,
        "duration_minutes": duration,
        "internal_monologue": monologue,
    }
