"""The pure rules of memory: when compaction is due, batching, era budgets, recall ranking and the
parsing of model answers at the boundary."""
from dataclasses import dataclass

import pytest

from memories.recall import Recalled, rank, terms_of
from memories.reflection import depth_of, parse_importance
from memories.thresholds import (HARD, SOFT, MemoryLoad, batches, compaction_due, fold_count)
from memories.trust import parse_verdicts

LIMITS = dict(memory_count=200, soft_chars=160_000, hard_chars=800_000)


@pytest.mark.parametrize("rows, chars, due", [
    (0, 0, None),
    (199, 10_000, None),
    (200, 10_000, SOFT),
    (10, 159_999, None),
    (10, 160_000, SOFT),
    (199, 799_999, SOFT),
    (10, 800_000, HARD),
    (500, 900_000, HARD),
])
def test_compaction_due_at_exactly_the_specified_counts_and_sizes(rows, chars, due):
    assert compaction_due(rows, chars, **LIMITS) == due


def test_only_rows_older_than_the_hot_window_count():
    load = MemoryLoad(covered_upto=10, count=250, chars=30_000)
    assert load.older(hot_count=50, hot_chars=5_000) == (200, 25_000)
    assert MemoryLoad(count=40, chars=4_000).older(hot_count=40, hot_chars=4_000) == (0, 0)


def test_batches_respect_rows_and_characters_and_keep_order():
    rows = [(i, "x" * 100) for i in range(440)]
    out = batches(rows, max_rows=200)
    assert [len(b) for b in out] == [200, 240]  # a short tail joins the batch before it
    assert [r for b in out for r in b] == rows
    big = [(i, "y" * 25_000) for i in range(5)]
    assert [len(b) for b in batches(big, max_rows=200, max_chars=60_000)] == [2, 2, 1]


def test_fold_count_folds_the_oldest_half_when_over_budget():
    assert fold_count([400] * 2) == 0
    assert fold_count([400] * 3) == 2  # at least two
    assert fold_count([400] * 6) == 3
    assert fold_count([900, 900]) == 2  # past the characters
    assert fold_count([5_000]) == 0


def test_rank_scores_recency_importance_and_relevance():
    hits = [
        Recalled(1, tick=0, kind="seen", importance=2, text="old and dull", relevance=1.0),
        Recalled(2, tick=900, kind="seen", importance=2, text="recent and dull", relevance=1.0),
        Recalled(3, tick=0, kind="violence", importance=10, text="old and pivotal", relevance=3.0),
    ]
    ranked = rank(hits, now_tick=1000)
    assert [h.id for h in ranked] == [3, 2, 1]
    assert ranked[0].score > ranked[1].score > ranked[2].score


def test_terms_keep_distinctive_words_only():
    assert terms_of(["First Class Smoking Room", "Eleanor Vance", None]) == ["smoking", "eleanor", "vance"]
    assert terms_of("the silver LOCKET") == ["silver", "locket"]


def test_trust_verdicts_are_validated_at_the_boundary():
    text = '{"Eleanor Vance": {"score": 4, "label": "ally", "emotional_tone": "warm", "rationale": "kind"},' \
           ' "Nobody Known": {"score": 1}, "Arthur Finch": {"score": "high"}}'
    verdicts = parse_verdicts(text, ["Eleanor Vance", "Arthur Finch"])
    assert verdicts == {"Eleanor Vance": (1.0, "ally", "warm", "kind")}
    assert parse_verdicts("I trust nobody.", ["Eleanor Vance"]) is None
    assert parse_verdicts('Sure: {"Eleanor Vance": {"score": -0.5, "label": "suspect"}}', ["Eleanor Vance"]) == \
        {"Eleanor Vance": (-0.5, "suspect", "", "")}


def test_importance_answers_are_clamped():
    assert parse_importance("7") == 7
    assert parse_importance("I'd say 12 out of 10") == 10
    assert parse_importance("none") is None


@dataclass
class Line:
    depth: int


def test_reflection_depth_is_one_more_than_its_deepest_evidence():
    assert depth_of([Line(0), Line(0)]) == 1
    assert depth_of([Line(0), Line(2), Line(1)]) == 3
    assert depth_of([]) == 1
