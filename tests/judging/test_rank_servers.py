"""`study rank` end to end on real local HTTP servers (issue 39's targets): a three-arm memory ablation
study whose arms answer the interview battery with a planted order of quality (through each arm's
`instruments` route to a server that plants it: full answers cleanly, no_reflection with a word foreign
to its world, hot_window_only with that and one word said thirty times). A judge that knows its job
recovers the planted order, full > no_reflection > hot_window_only, with intervals apart and the verdict
reliable; a judge that always prefers the first answer is unreliable with order_flip_share >= 0.9; one
that answers at random is unreliable. The study's runs are made once for the three."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from tests.judge_servers import FirstAnswerJudge, KnowingJudge, PlantedAnswers, RandomJudge
from voyage.models import ModelProfile, Run
from voyage.studies.models import Study

pytestmark = pytest.mark.django_db
NAME = "planted ablation"
ARMS = {"full": "clean", "no_reflection": "one_slip", "hot_window_only": "two_slips"}  # the planted order
AGENTS = "anton_kessler,ilse_marr"
BATTERY = """questions:
  - {id: self_name, category: self_knowledge, text: "Give an introduction of yourself."}
  - {id: memory_last, category: memory, text: "What is the most recent thing that happened to you?"}
  - {id: plans_next, category: plans, text: "What will you do in the next hour?"}
"""


@pytest.fixture(scope="module")  # not the session's: other files count the studies there are
def ablation(django_db_setup, django_db_blocker, tmp_path_factory):
    """Three arms of memory (full, no_reflection, hot_window_only) x 2 seeds of Edelweiss, 12 ticks each,
    run offline once; deleted after this file's tests."""
    battery = tmp_path_factory.mktemp("battery") / "three.yaml"
    battery.write_text(BATTERY)
    with django_db_blocker.unblock():
        call_command("study", "create", "--name", NAME, "--scenario", "edelweiss", "--ticks", "12",
                     "--vary", f"memory={','.join(ARMS)}", "--vary", "seeds=2", "--no-start", stdout=io.StringIO())
        call_command("study", "run", NAME, stdout=io.StringIO(), stderr=io.StringIO())
        study = Study.objects.get(name=NAME)
        runs = list(study.members.values_list("run_id", flat=True))
    try:
        yield f"{battery}@12"
    finally:
        with django_db_blocker.unblock():
            Study.objects.filter(name=NAME).delete()
            Run.objects.filter(pk__in=runs).delete()


def ranked_by(judge_class, battery: str) -> tuple[list[dict], dict]:
    """`study rank` with the judge on its own server, every arm answering through the planted server."""
    with PlantedAnswers() as answers, judge_class() as judge:
        for arm, model in ARMS.items():
            profile = ModelProfile.objects.create(name=f"answers {model}", kind=ModelProfile.OPENAI,
                                                  base_url=answers.base_url, model=model)
            Run.objects.filter(study_member__study__name=NAME, study_member__cell__memory=arm).update(
                profile_routes={"instruments": profile.name})
        ModelProfile.objects.create(name="judge", kind=ModelProfile.OPENAI, base_url=judge.base_url, model="judge")
        out = io.StringIO()
        call_command("study", "rank", NAME, "--judge", "judge", "--agents", AGENTS, "--battery", battery,
                     stdout=out, stderr=io.StringIO())
        assert len(judge.records) > 0 and len(answers.records) == 6 * 2 * 3  # runs x agents x questions
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    return lines[:-1], lines[-1]


def test_a_judge_that_knows_its_job_recovers_the_planted_order(ablation):
    arms, judge = ranked_by(KnowingJudge, ablation)
    assert [a["arm"] for a in arms] == [f"memory={arm}" for arm in ARMS]
    assert [a["rank"] for a in arms] == [1, 2, 3]
    assert arms[0]["ci_low"] > arms[1]["ci_high"] and arms[1]["ci_low"] > arms[2]["ci_high"]
    assert judge["order_flip_share"] == 0.0 and judge["scripted"] is False
    assert judge["verdict"] == "reliable", judge["verdict_reasons"]


def test_a_judge_that_prefers_the_first_answer_is_unreliable(ablation):
    _, judge = ranked_by(FirstAnswerJudge, ablation)
    assert judge["order_flip_share"] >= 0.9
    assert judge["verdict"] == "unreliable" and any("order_flip_share" in r for r in judge["verdict_reasons"])


def test_a_judge_that_answers_at_random_is_unreliable(ablation):
    arms, judge = ranked_by(RandomJudge, ablation)
    assert judge["verdict"] == "unreliable"
    assert len(arms) == 3
