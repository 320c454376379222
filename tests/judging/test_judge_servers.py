"""Three judges on real local HTTP servers give the three verdicts: one that knows its job is
reliable (every planted defect found), one that always prefers the first answer is unreliable (its
verdicts flip with the order), one that answers at random is unreliable (α near 0)."""
from __future__ import annotations

import pytest

from tests.judge_servers import FirstAnswerJudge, KnowingJudge, RandomJudge
from voyage.judging.job import judge_run
from voyage.judging.rubric import load_rubric
from voyage.models import LLMCall, ModelProfile

pytestmark = pytest.mark.django_db
AGENTS = ["arthur_finch", "bridget_keane", "clara_dunning", "harold_ashcombe", "leah_rosen", "mary_donnelly",
          "michael_keane", "patrick_dolan", "samuel_rook", "thomas_penhallow"]


def judged_by(run, server_class, name, **kwargs):
    with server_class() as server:
        ModelProfile.objects.create(name=name, kind=ModelProfile.OPENAI, base_url=server.base_url, model="judge",
                                    price_in_per_m=1, price_out_per_m=2)
        result = judge_run(run, load_rubric(), 1, agents=AGENTS, judges=[name], **kwargs)
        assert len(server.records) == result.calls
    return result


def test_a_judge_that_knows_its_job_is_reliable(judged_run):
    result = judged_by(judged_run, KnowingJudge, "knowing", planted_share=1.0)
    assert not result.scripted and result.projection["cost"] > 0
    for kind, found in result.checks["planted_detection"].items():
        assert found["n"] >= 5 and found["rate"] >= 0.9, kind
    assert result.checks["order_flip_share"] == 0.0 and result.verdict == "reliable"
    assert set(LLMCall.objects.filter(run=judged_run, purpose="judge", profile="knowing")
               .values_list("profile", flat=True)) == {"knowing"}


def test_a_judge_that_prefers_the_first_answer_is_unreliable(judged_run):
    result = judged_by(judged_run, FirstAnswerJudge, "first")
    assert result.checks["order_flip_share"] >= 0.9
    assert result.verdict == "unreliable" and any("order_flip_share" in r for r in result.reasons)


def test_a_judge_that_answers_at_random_is_unreliable(judged_run):
    result = judged_by(judged_run, RandomJudge, "random", repeat_share=1.0)
    assert result.checks["repeat_alpha"] <= 0.2
    assert result.verdict == "unreliable"


def test_two_judges_are_compared(judged_run):
    with KnowingJudge() as knowing, RandomJudge() as rand:
        ModelProfile.objects.create(name="k2", kind=ModelProfile.OPENAI, base_url=knowing.base_url, model="judge")
        ModelProfile.objects.create(name="r2", kind=ModelProfile.OPENAI, base_url=rand.base_url, model="judge")
        result = judge_run(judged_run, load_rubric(), 1, agents=AGENTS, judges=["k2", "r2"])
    assert result.checks["judges_alpha"] is not None and result.checks["judges_alpha"] <= 0.3
    assert result.verdict == "unreliable" and {r.judge for r in result.rows} == {"k2", "r2"}
