"""`manage.py study rank`: a two-arm memory ablation study ranked from the judge's pairwise verdicts
on the interview battery, one JSON line per arm and one with the judge's verdict; what cannot be
ranked is refused saying why."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from voyage.instruments.models import Interview
from voyage.judging.answers import BatteryError, battery_for, load_battery
from voyage.judging.rubric import load_rubric
from voyage.models import LLMCall

pytestmark = pytest.mark.django_db
AGENTS = "harold_ashcombe,bridget_keane"


def command(*args) -> list[dict]:
    out = io.StringIO()
    call_command("study", *args, stdout=out, stderr=io.StringIO())
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.fixture
def ablation_study():
    command("create", "--name", "ablation", "--scenario", "1912", "--ticks", "40", "--vary",
            "memory=full,hot_window_only", "--vary", "seeds=2", "--no-start")
    command("run", "ablation")
    return "ablation"


def test_the_arms_are_ranked_with_intervals_and_the_judges_verdict(ablation_study):
    lines = command("rank", ablation_study, "--agents", AGENTS, "--battery", f"{battery_for('1912')}@30")
    arms, judge = lines[:2], lines[2]
    assert [a["rank"] for a in arms] == [1, 2]
    assert {a["arm"] for a in arms} == {"memory=full", "memory=hot_window_only"}
    assert all(a["ci_low"] <= a["score"] <= a["ci_high"] for a in arms)
    questions = len(load_battery(battery_for("1912")))
    assert arms[0]["comparisons"] == 2 * 2 * questions * 2  # seeds x agents x questions x both orders
    assert judge["verdict"] in ("reliable", "doubtful", "unreliable") and judge["scripted"] is True
    assert judge["order_flip_share"] == 0.0 and judge["tick"] == 30
    assert judge["answers"] == 4 * 2 * questions  # runs x agents x questions
    assert Interview.objects.filter(tick=30).count() == 4 * 2 * questions
    assert LLMCall.objects.filter(purpose="judge").count() == judge["calls"]
    assert judge["options"] == {"packet_tokens": 4500, "dimensions": [d.id for d in load_rubric().dimensions],
                                "questions": questions, "agents": 2}


def test_a_ranking_cut_down_for_a_small_judge_says_so(ablation_study, tmp_path):
    one = tmp_path / "one.yaml"
    one.write_text("questions:\n  - {id: m, category: memory, text: \"What happened to you last?\"}\n")
    *arms, judge = command("rank", ablation_study, "--agents", "harold_ashcombe", "--battery", f"{one}@30",
                           "--packet-tokens", "1200", "--dimensions", "world_voice,persona_adherence")
    assert len(arms) == 2 and judge["answers"] == 4
    assert judge["options"] == {"packet_tokens": 1200, "dimensions": ["persona_adherence", "world_voice"],
                                "questions": 1, "agents": 1}
    prompts = [c.prompt for c in LLMCall.objects.filter(purpose="judge")]
    assert prompts and all('"id": "ladder_discipline"' not in m[-1]["content"] for m in prompts)
    assert max(len(m[-1]["content"]) for m in prompts) // 4 < 1200 + 1000  # two packets of 600, the dimensions
    with pytest.raises(CommandError, match="packet tokens: 100 is too few"):
        command("rank", ablation_study, "--packet-tokens", "100")


def test_what_cannot_be_ranked_is_refused(ablation_study, tmp_path):
    with pytest.raises(CommandError, match="ask at a tick from 1 to 40"):
        command("rank", ablation_study, "--battery", f"{battery_for('1912')}@99")
    bad = tmp_path / "b.yaml"
    bad.write_text("questions:\n  - {id: a, category: dreams, text: hi}\n")
    with pytest.raises(CommandError, match=r"questions\[0\].category: 'dreams' is not one of"):
        command("rank", ablation_study, "--battery", f"{bad}@10")
    command("create", "--name", "one-arm", "--scenario", "1912", "--ticks", "5", "--vary", "seeds=2", "--no-start")
    with pytest.raises(CommandError, match="has 1 arm"):
        command("rank", "one-arm")


def test_the_world_has_its_battery_and_any_world_one():
    assert battery_for("1912").name == "1912.yaml" and battery_for("edelweiss").name == "any.yaml"
    for path in (battery_for("1912"), battery_for("nowhere")):
        assert {q.category for q in load_battery(path)} == {"self_knowledge", "memory", "plans", "reactions",
                                                             "reflections"}
    with pytest.raises(BatteryError, match="cannot read"):
        load_battery("/nonexistent.yaml")


def test_the_report_shows_the_ranking_as_a_picture_beside_the_verdict(ablation_study, staff):
    from voyage.studies.models import Study

    study = Study.objects.get(name=ablation_study)
    report = f"/studies/{study.pk}/report/"
    assert "Not ranked yet" in staff.get(report).content.decode()
    command("rank", ablation_study, "--agents", AGENTS, "--battery", f"{battery_for('1912')}@30")
    page = staff.get(report).content.decode()
    assert '<svg xmlns="http://www.w3.org/2000/svg" role="img" class="ranking"' in page
    assert 'data-arm="memory=full"' in page and 'data-arm="memory=hot_window_only"' in page
    assert 'class="verdict">' in page and "scripted, not a language model" in page
    kept = staff.get(f"/studies/{study.pk}/report.html").content.decode()
    assert 'class="ranking"' in kept  # the downloaded file carries it too
