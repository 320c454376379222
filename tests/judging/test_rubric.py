"""Rubrics as data: the default rubric loads, and a bad file is refused naming its key and line."""
from __future__ import annotations

import pytest

from voyage.judging.rubric import DEFAULT, RubricError, load_rubric, parse_rubric

GOOD = """\
rubric: tiny
scale: {low: 1, high: 5}
dimensions:
  - id: voice
    question: Does it talk like a person of its world?
    anchors: {low: "no", middle: "partly", high: "yes"}
    weight: 2
    reads: [items, world]
"""


def test_the_default_rubric_has_the_eight_dimensions():
    rubric = load_rubric()
    assert [d.id for d in rubric.dimensions] == [
        "persona_adherence", "self_consistency", "memory_grounding", "social_plausibility", "world_voice",
        "ladder_discipline", "distinctiveness", "non_repetition"]
    assert all(d.low == 1 and d.high == 5 and set(d.anchors) == {"low", "middle", "high"} for d in rubric.dimensions)
    assert rubric.verdict["reliable"]["repeat_alpha"] == 0.8
    assert load_rubric(DEFAULT) == rubric


def test_a_small_rubric_reads_as_written():
    rubric = parse_rubric(GOOD)
    assert rubric.name == "tiny"
    (dim,) = rubric.dimensions
    assert (dim.id, dim.weight, dim.reads, dim.low, dim.high) == ("voice", 2.0, ("items", "world"), 1.0, 5.0)


@pytest.mark.parametrize("old, new, message", [
    ('middle: "partly", ', "", "dimensions[0].anchors.middle (line 6): missing"),
    ("weight: 2", "weight: heavy", "dimensions[0].weight (line 7): expected a number, not 'heavy'"),
    ("weight: 2", "weight: 0", "dimensions[0].weight (line 7): must be above 0"),
    ("[items, world]", "[items, weather]", "dimensions[0].reads (line 8): 'weather' is not part of a packet"),
    ("scale: {low: 1, high: 5}", "scale: {low: 5, high: 1}", "scale (line 2): low (5) must be below high (1)"),
    ("    question: Does it talk like a person of its world?\n", "", "dimensions[0].question (line 4): missing"),
    ("rubric: tiny", "rubric: tiny\ncolour: red", "rubric.colour (line 2): unknown key"),
    ("    weight: 2\n", "    weight: 2\n    wieght: 3\n", "dimensions[0].wieght (line 8): unknown key"),
    ("{low: \"no\"", "{low: \"no\" ]", "(line 6): not YAML"),
])
def test_errors_name_their_key_and_line(old, new, message):
    assert old in GOOD
    with pytest.raises(RubricError) as caught:
        parse_rubric(GOOD.replace(old, new, 1), "rubric")
    assert message in str(caught.value)


def test_no_dimensions_and_a_dimension_scale_upside_down():
    with pytest.raises(RubricError, match=r"dimensions \(line 3\): expected a list of at least one dimension"):
        parse_rubric("rubric: x\nscale: {low: 1, high: 5}\ndimensions: []\n")
    with pytest.raises(RubricError, match=r"dimensions\[0\].scale \(line 9\): low \(3\) must be below high \(2\)"):
        parse_rubric(GOOD + "    scale: {low: 3, high: 2}\n")


def test_two_dimensions_with_one_id_and_a_bad_verdict_check():
    twice = GOOD + GOOD[GOOD.index("  - id"):]
    with pytest.raises(RubricError, match=r"dimensions\[1\].id \(line 9\): 'voice' is given to two dimensions"):
        parse_rubric(twice)
    with pytest.raises(RubricError, match=r"verdict.reliable.alpha \(line 10\): unknown check"):
        parse_rubric(GOOD + "verdict:\n  reliable: {alpha: 0.9}\n")


def test_a_missing_file_says_so(tmp_path):
    with pytest.raises(RubricError, match="cannot read the rubric"):
        load_rubric(tmp_path / "nope.yaml")
