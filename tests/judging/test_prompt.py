"""Reading the judge's answer: untrusted, so a score without a citation, with a citation of an id its
packet does not hold, or outside its scale is recorded as missing, with the reason."""
from __future__ import annotations

import json

import pytest

from voyage.gateway.strict_rules import broken_rules
from voyage.judging.packets import day_packets
from voyage.judging.prompt import pair_schema, read_pair, read_scores, score_messages, score_schema
from voyage.judging.rubric import load_rubric, parse_rubric

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


@pytest.mark.django_db
def test_the_answer_schema_holds_every_dimension_and_only_the_packets_ids(judged_run):
    rubric = load_rubric()
    packets = day_packets(judged_run, 1)
    biggest = max(packets, key=lambda p: len(p["items"]) + len(p["recalled"]))
    schema = score_schema(rubric, biggest)
    assert broken_rules(schema) == []  # OpenAI's strict mode takes it, on the busiest packet of the day
    scores = schema["properties"]["scores"]
    assert scores["required"] == [d.id for d in rubric.dimensions]
    assert scores["properties"]["world_voice"]["properties"]["score"]["enum"] == [1, 2, 3, 4, 5]
    assert set(schema["$defs"]["cites"]["items"]["enum"]) == {i["id"] for i in biggest["items"] + biggest["recalled"]}
    assert (schema["$defs"]["cites"]["minItems"], schema["$defs"]["cites"]["maxItems"]) == (1, 8)
    pair = pair_schema(packets[0], packets[1])
    assert broken_rules(pair) == [] and pair["properties"]["better"]["enum"] == ["A", "B"]
    assert set(pair["$defs"]["cites"]["items"]["enum"]) == {i["id"] for p in packets[:2] for i in p["items"] + p["recalled"]}
