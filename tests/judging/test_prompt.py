"""Reading the judge's answer: untrusted, so a score without a citation, with a citation of an id its
packet does not hold, or outside its scale is recorded as missing, with the reason."""
from __future__ import annotations

import json

from voyage.judging.prompt import read_pair, read_scores, score_messages
from voyage.judging.rubric import parse_rubric

RUBRIC = parse_rubric("""\
scale: {low: 1, high: 5}
dimensions:
  - {id: voice, question: "Of its world?", anchors: {low: a, middle: b, high: c}}
  - {id: memory, question: "Grounded?", anchors: {low: a, middle: b, high: c}}
""")
PACKET = {"id": "r1.d1.x", "items": [{"id": "m1", "text": "a"}, {"id": "m2", "text": "b"}],
          "recalled": [{"id": "m9", "text": "c"}]}
OTHER = {"id": "r1.d1.y", "items": [{"id": "m5", "text": "d"}], "recalled": []}


def answer(**scores) -> str:
    return "Here it is: " + json.dumps({"scores": scores})


def test_a_citation_outside_the_packet_is_missing_with_its_reason():
    voice, memory = read_scores(answer(voice={"score": 4, "reason": "fine", "cites": ["m1", "m9"]},
                                       memory={"score": 5, "reason": "all there", "cites": ["m2", "m77"]}),
                                RUBRIC, PACKET)
    assert (voice.score, voice.cites, voice.missing) == (4.0, ("m1", "m9"), "")
    assert memory.score is None and memory.missing == "cites m77, not in its packet"
    assert memory.reason == "all there"  # kept for the record, beside why it does not count


def test_no_citation_a_score_off_the_scale_and_no_answer_are_missing():
    voice, memory = read_scores(answer(voice={"score": 4, "reason": "fine", "cites": []},
                                       memory={"score": 9, "reason": "x", "cites": ["m1"]}), RUBRIC, PACKET)
    assert voice.missing == "cites no row" and memory.missing == "score 9 is outside 1–5"
    assert {j.missing for j in read_scores("I refuse.", RUBRIC, PACKET)} == {"the answer holds no JSON object with scores"}
    assert {j.missing for j in read_scores(None, RUBRIC, PACKET, "timed out")} == {"no answer: timed out"}
    (voice, memory) = read_scores(answer(voice={"score": "high", "cites": ["m1"]}), RUBRIC, PACKET)
    assert voice.missing == "score 'high' is not a number" and memory.missing == "not scored"


def test_a_pair_verdict_names_its_packet_and_checks_its_citations():
    assert read_pair('{"better": "B", "reason": "r", "cites": ["m5"]}', PACKET, OTHER) == ("r1.d1.y", "")
    assert read_pair('{"better": "A", "reason": "r", "cites": ["m404"]}', PACKET, OTHER) == (
        None, "cites m404, not in its packet")
    assert read_pair('{"better": "neither"}', PACKET, OTHER) == (None, "the answer names neither A nor B")


def test_the_prompt_holds_the_packet_and_every_dimension():
    text = score_messages(RUBRIC, PACKET)[1]["content"]
    assert json.dumps(PACKET) in text and '"id": "voice"' in text and '"id": "memory"' in text and "JSON" in text
