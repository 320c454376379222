"""What the judge is shown, and reading what it answers. Pure.

A scoring prompt gives the rubric's dimensions and one packet, and asks for one JSON object: per
dimension a score on its scale, a one-sentence reason, and the ids of the rows it rests on. A pair
prompt gives two packets (A, B) and asks which is more believable. The answer is untrusted: a score
outside its scale, no citation, or a citation of an id the packet does not hold is recorded as
missing, with the reason."""
from __future__ import annotations

import json
from dataclasses import dataclass

from voyage.gateway.json_extract import parse_json_object
from voyage.judging.rubric import Rubric

SYSTEM = ("You judge how believable simulated people are, from evidence drawn from a simulation's record. "
          "Judge only from the evidence packet; cite the ids of the rows each judgement rests on.")
PACKET_START, PACKET_END = "EVIDENCE PACKET {label}(JSON):", "END OF PACKET"
REASON_CHARS = 400
MAX_CITES = 8  # in the answer's schema


@dataclass(frozen=True)
class Judgement:
    dimension: str
    score: float | None
    reason: str
    cites: tuple[str, ...]
    missing: str = ""  # why there is no score (empty: there is one)


def _packet_block(packet: dict, label: str = "") -> str:
    return (f"{PACKET_START.format(label=label + ' ' if label else '')}\n{json.dumps(packet, ensure_ascii=False)}\n"
            f"{PACKET_END}")


def _dims_block(rubric: Rubric, packet: dict) -> str:
    """The dimensions, each with what it reads of this packet (a scene has no persona, a day no scene)."""
    dims = [{"id": d.id, "question": d.question, "scale": [d.low, d.high], "anchors": d.anchors,
             "reads": [r for r in d.reads if r in packet]} for d in rubric.dimensions]
    return "DIMENSIONS (JSON):\n" + json.dumps(dims, ensure_ascii=False)


def score_messages(rubric: Rubric, packet: dict) -> list[dict]:
    ask = ('Answer with one JSON object and nothing else: {"scores": {"<dimension id>": {"score": <number on its '
           'scale>, "reason": "<one sentence>", "cites": ["<row id>", ...]}, ...}} with every dimension.')
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"{_dims_block(rubric, packet)}\n\n{_packet_block(packet)}\n\n{ask}"}]


def pair_messages(rubric: Rubric, first: dict, second: dict) -> list[dict]:
    ask = ('Which packet shows the more believable person, over all the dimensions? Answer with one JSON object and '
           'nothing else: {"better": "A" or "B", "reason": "<one sentence>", "cites": ["<row id>", ...]}.')
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"{_dims_block(rubric.for_packet(first), first)}\n\n"
                                        f"{_packet_block(first, 'A')}\n\n"
                                        f"{_packet_block(second, 'B')}\n\n{ask}"}]


def _scale_schema(low: float, high: float) -> dict:
    if float(low).is_integer() and float(high).is_integer() and high - low <= 20:
        return {"type": "integer", "enum": list(range(int(low), int(high) + 1))}
    return {"type": "number", "minimum": low, "maximum": high}


def _answer_schema(properties: dict, *packets: dict) -> dict:
    """A closed object of `properties`, each required, whose `cites` (`$ref` #/$defs/cites) are ids
    of `packets`' rows, one to MAX_CITES (listed once, however many dimensions cite). The bound
    keeps a small model from citing until it runs out of tokens, its answer cut short."""
    ids = sorted(set().union(*(packet_ids(p) for p in packets)))
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False,
            "$defs": {"cites": {"type": "array", "items": {"type": "string", "enum": ids}, "minItems": 1,
                                "maxItems": MAX_CITES, "description": "ids of the packet's rows"}}}


def _because() -> dict:
    return {"reason": {"type": "string", "description": "one sentence"}, "cites": {"$ref": "#/$defs/cites"}}


def score_schema(rubric: Rubric, packet: dict) -> dict:
    """The JSON schema of a scoring answer, for endpoints that take one (the profile's structured
    output): every dimension, each a score on its scale, a reason and the ids it cites, one at least,
    each an id of the packet. The answer is still read as untrusted (read_scores): a schema shapes
    it where the endpoint enforces it, it vouches for nothing."""
    dims = {d.id: {"type": "object", "properties": {"score": _scale_schema(d.low, d.high), **_because()},
                   "required": ["score", "reason", "cites"], "additionalProperties": False}
            for d in rubric.dimensions}
    return _answer_schema({"scores": {"type": "object", "properties": dims, "required": list(dims),
                                      "additionalProperties": False}}, packet)


def pair_schema(first: dict, second: dict) -> dict:
    return _answer_schema({"better": {"type": "string", "enum": ["A", "B"]}, **_because()}, first, second)


def packet_ids(packet: dict) -> set[str]:
    return {row["id"] for row in (*packet.get("items", ()), *packet.get("recalled", ()))}


def _citations(value, ids: set[str]) -> tuple[tuple[str, ...], str]:
    if not isinstance(value, list) or not value:
        return (), "cites no row"
    cites = tuple(str(c) for c in value)
    foreign = [c for c in cites if c not in ids]
    if foreign:
        return cites, f"cites {', '.join(foreign[:5])}, not in its packet"
    return cites, ""


def read_scores(text: str | None, rubric: Rubric, packet: dict, error: str = "") -> list[Judgement]:
    """One Judgement per dimension of the rubric, in its order."""
    if text is None:
        return [Judgement(d.id, None, "", (), f"no answer: {error or 'the call failed'}") for d in rubric.dimensions]
    try:
        answer = parse_json_object(text)
    except ValueError:
        answer = None
    scores = answer.get("scores") if isinstance(answer, dict) else None
    if not isinstance(scores, dict):
        return [Judgement(d.id, None, "", (), "the answer holds no JSON object with scores") for d in rubric.dimensions]
    ids = packet_ids(packet)
    out = []
    for d in rubric.dimensions:
        given = scores.get(d.id)
        if not isinstance(given, dict):
            out.append(Judgement(d.id, None, "", (), "not scored"))
            continue
        reason = str(given.get("reason", ""))[:REASON_CHARS]
        cites, problem = _citations(given.get("cites"), ids)
        score = given.get("score")
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            problem = problem or f"score {score!r} is not a number"
        elif not d.low <= score <= d.high:
            problem = problem or f"score {score:g} is outside {d.low:g}–{d.high:g}"
        out.append(Judgement(d.id, None if problem else float(score), reason, cites, problem))
    return out


def read_pair(text: str | None, first: dict, second: dict) -> tuple[str | None, str]:
    """(the better packet's id, or None) and why there is none."""
    answer = None
    if text is not None:
        try:
            answer = parse_json_object(text)
        except ValueError:
            answer = None
    if not isinstance(answer, dict) or answer.get("better") not in ("A", "B"):
        return None, "the answer names neither A nor B"
    _, problem = _citations(answer.get("cites"), packet_ids(first) | packet_ids(second))
    if problem:
        return None, problem
    return (first if answer["better"] == "A" else second)["id"], ""
