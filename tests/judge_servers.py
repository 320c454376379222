"""Three judges on local chat-completions servers (voyage/bench/fake_openai_server.py), for the
judge's self-checks: real HTTP, the OpenAI protocol, the prompt as Voyage sends it.

- KnowingJudge: knows its job. It reads the packets in the prompt and scores them from the signals a
  careful reader would see (the proxies of voyage.gateway.offline_judge: someone else's history, a
  denial of its own line, a word foreign to its world, a name too soon, a line said again and again),
  and compares two packets, whichever side each is on, by the defects it finds first (speaking as
  someone else is the worst; then how many kinds of defect), then by those scores.
- FirstAnswerJudge: scores as the knowing judge, but in a pair always prefers the first (A).
- RandomJudge: a score drawn at random for each dimension (citing real rows of the packet, so its
  scores count), and A or B at random."""
from __future__ import annotations

import json
import random
import threading

from voyage.bench.fake_openai_server import FakeOpenAI, messages_digest
from voyage.gateway.offline_judge import (JudgeHints, anachronisms, contradictions, false_claims, judge, names_too_soon,
                                          repeats, weighted_total)
from voyage.judging.prompt import PACKET_END


def _json_after(text: str, marker: str):
    return json.loads(text.split(marker, 1)[1].split("\n", 2)[1])


def read_prompt(body: dict) -> JudgeHints:
    text = body["messages"][-1]["content"]
    dims = json.loads(text.split("DIMENSIONS (JSON):\n", 1)[1].split("\n", 1)[0])
    scales = tuple((d["id"], float(d["scale"][0]), float(d["scale"][1])) for d in dims)
    if "EVIDENCE PACKET A (JSON):" in text:
        packets = (_json_after(text, "EVIDENCE PACKET A (JSON):"), _json_after(text, "EVIDENCE PACKET B (JSON):"))
        return JudgeHints("pair", packets, scales)
    assert PACKET_END in text
    return JudgeHints("score", (_json_after(text, "EVIDENCE PACKET (JSON):"),), scales)


def defects_found(packet: dict) -> tuple[int, int]:
    """(claims to be someone else, how many kinds of defect) in a packet: fewer is better."""
    kinds = [bool(false_claims(packet)), bool(contradictions(packet)), bool(anachronisms(packet)),
             bool(names_too_soon(packet)), repeats(packet)[0] > 1]
    return int(kinds[0]), sum(kinds)


class KnowingJudge(FakeOpenAI):
    def _content(self, body: dict, fault) -> str:
        hints = read_prompt(body)
        if hints.mode != "pair":
            return judge(hints)
        a, b = ((*(-n for n in defects_found(p)), weighted_total(p, hints.dimensions), -int(p["id"] != min(
            q["id"] for q in hints.packets))) for p in hints.packets)
        better = "A" if a > b else "B"
        return json.dumps({"better": better, "reason": "The fewer defects, then the better scores.",
                           "cites": [hints.packets[0 if better == "A" else 1]["items"][0]["id"]]})


class FirstAnswerJudge(KnowingJudge):
    def _content(self, body: dict, fault) -> str:
        hints = read_prompt(body)
        if hints.mode == "pair":
            return json.dumps({"better": "A", "reason": "The first one.", "cites": [hints.packets[0]["items"][0]["id"]]})
        return judge(hints)


class RandomJudge(FakeOpenAI):
    """Draws from a generator seeded by the prompt and by how many times that prompt came before, not
    from one shared stream: the judge's asks arrive from a pool of threads in no fixed order, and a
    shared stream would hand each ask different draws from one run to the next (and α with them). A
    prompt asked again still gets fresh draws (its second seed differs); which of the two copies
    arrives first does not matter, as α is the same whichever way round a unit's two scores are."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen: dict[str, int] = {}
        self.seen_lock = threading.Lock()

    def _draws(self, body: dict) -> random.Random:
        digest = messages_digest(body["messages"])
        with self.seen_lock:
            nth = self.seen[digest] = self.seen.get(digest, -1) + 1
        return random.Random(f"39:{nth}:{digest}")

    def _content(self, body: dict, fault) -> str:
        hints, draws = read_prompt(body), self._draws(body)
        if hints.mode == "pair":
            return json.dumps({"better": draws.choice("AB"), "reason": "Who knows.",
                               "cites": [hints.packets[0]["items"][0]["id"]]})
        ids = [item["id"] for item in hints.packets[0]["items"]]
        return json.dumps({"scores": {d: {"score": draws.randint(int(lo), int(hi)), "reason": "A guess.",
                                          "cites": [draws.choice(ids)]} for d, lo, hi in hints.dimensions}})


# What a PlantedAnswers server says to every interview question, by the model name its profile asks for:
# the same plain line, then a word foreign to any world, then that and one word said over and over. A
# judge that knows its job prefers them in that order, whichever side each is shown on. (No capitalised
# word: every answer is as grounded as the others, whatever each arm remembers.)
PLANTED_ANSWERS = {
    "clean": "i keep to my work and mind what the day brings, as any sensible soul would",
    "one_slip": "i keep to my work and mind what the day brings, as my smartphone tells me",
    "two_slips": "i keep to my smartphone, " + " ".join(["yes"] * 30),
}


class PlantedAnswers(FakeOpenAI):
    """Answers interviews with PLANTED_ANSWERS[model]: a study's arms routed to it by `instruments`
    profiles of different models answer with a known order of quality."""

    def _content(self, body: dict, fault) -> str:
        return PLANTED_ANSWERS[body["model"]]
