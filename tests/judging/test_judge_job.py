"""A judging job on the offline scripted judge: it leaves no trace in the run, its calls are recorded
with purpose judge (apart in usage, outside the budget), the command prints its JSON line and a tidy
CSV, a budget refuses it before any call, and a 33-agent day takes well under 10 s of CPU."""
from __future__ import annotations

import csv
import io
import json
import time

import pytest
from django.core.management import CommandError, call_command

from tests.memory_helpers import run_tables
from tests.oracle import assert_same, transcript
from voyage.calls.usage import simulation_totals, usage_totals
from voyage.engine.budget import Budget
from voyage.judging.job import OFFLINE, judge_run
from voyage.judging.rubric import load_rubric
from voyage.models import LLMCall

pytestmark = pytest.mark.django_db


def test_judging_leaves_no_trace_in_the_run(judged_run):
    events, tables = transcript(judged_run), run_tables(judged_run)
    spent, simulated = Budget(judged_run).tokens, simulation_totals(judged_run)
    before = LLMCall.objects.filter(run=judged_run, purpose="judge").count()
    result = judge_run(judged_run, load_rubric(), 1, agents=["harold_ashcombe", "bridget_keane", "leah_rosen"])
    assert_same(transcript(judged_run), events)
    assert run_tables(judged_run) == tables
    assert Budget(judged_run).tokens == spent and simulation_totals(judged_run) == simulated
    calls = LLMCall.objects.filter(run=judged_run, purpose="judge")
    assert calls.count() - before == result.calls > 0
    assert usage_totals(judged_run)["by_purpose"]["judge"]["calls"] == calls.count()


def test_the_offline_judge_is_scripted_and_proves_itself(judged_run):
    result = judge_run(judged_run, load_rubric(), 1)
    assert result.scripted and {r.judge for r in result.rows} == {OFFLINE}
    assert all(r.judgement.reason.startswith("[scripted judge") for r in result.rows)
    assert result.checks["repeat_alpha"] == 1.0  # deterministic: the same packet, the same scores
    assert result.checks["order_flip_share"] == 0.0
    assert all(d["rate"] == 1.0 and d["n"] >= 5 for d in result.checks["planted_detection"].values())
    assert result.verdict == "reliable"


def test_the_command_prints_its_json_line_and_a_tidy_csv(judged_run, tmp_path):
    out, err = io.StringIO(), io.StringIO()
    start = time.process_time()
    call_command("judge", str(judged_run.pk), "--day", "1", "-o", str(tmp_path / "scores.csv"), stdout=out,
                 stderr=err)
    cpu = time.process_time() - start
    line = json.loads(out.getvalue())
    assert {"run_id", "judged", "missing", "verdict", "repeat_alpha", "judges_alpha", "planted_detection", "calls",
            "cpu_s", "order_flip_share"} <= set(line)
    assert line["judged"] == 33 * 8 and line["missing"] == 0 and line["verdict"] == "reliable"
    # The target, 10 s for a 33-agent day of 1912 with the default rubric offline, is the command's own
    # `cpu_s` figure, to measure: a machine of this kind can be three times slower than the one it was
    # set on. Only a gross regression fails here.
    assert cpu < 40 and line["cpu_s"] > 0
    assert json.loads(err.getvalue().split("projected: ", 1)[1])["calls"] == line["calls"]
    rows = list(csv.DictReader((tmp_path / "scores.csv").open()))
    assert list(rows[0])[:9] == ["run", "day", "agent", "dimension", "score", "reason", "cited_ids", "repeat", "judge"]
    originals = [r for r in rows if r["copy"] == "original" and r["repeat"] == "0"]
    assert len(originals) == 33 * 8 and {r["verdict"] for r in rows} == {"reliable"}
    assert all(r["cited_ids"].startswith("m") for r in originals)


def test_bad_input_is_refused_with_what_is_wrong(judged_run, tmp_path):
    with pytest.raises(CommandError, match="over the budget of 1000"):
        call_command("judge", str(judged_run.pk), "--budget-tokens", "1000", stdout=io.StringIO(), stderr=io.StringIO())
    with pytest.raises(CommandError, match="there is no model profile 'ghost'"):
        call_command("judge", str(judged_run.pk), "--judge", "ghost", stdout=io.StringIO())
    with pytest.raises(CommandError, match="scenes: a count from 0 to 20, not 21"):  # as the form and the API
        call_command("judge", str(judged_run.pk), "--scenes", "21", stdout=io.StringIO())
    bad = tmp_path / "bad.yaml"
    bad.write_text("dimensions:\n  - id: x\n    question: q\n")
    with pytest.raises(CommandError, match=r"dimensions\[0\].anchors \(line 2\): missing"):
        call_command("judge", str(judged_run.pk), "--rubric", str(bad), stdout=io.StringIO())


def test_a_job_cut_down_for_a_small_judge_says_so(judged_run):
    out, err = io.StringIO(), io.StringIO()
    call_command("judge", str(judged_run.pk), "--agents", "harold_ashcombe", "--packet-tokens", "1200",
                 "--dimensions", "world_voice,persona_adherence", "--pairs", "0", "--planted-share", "1",
                 stdout=out, stderr=err)
    line = json.loads(out.getvalue())
    assert line["options"] == {"packet_tokens": 1200, "dimensions": ["persona_adherence", "world_voice"],
                               "agents": 1, "repeat_share": 0.2, "planted_share": 1.0, "pairs": 0}
    assert line["rubric"] == "default (persona_adherence, world_voice)" and line["judged"] == 2
    # One packet: judged, judged again, and one altered copy per defect of a dimension kept; no pair.
    assert line["calls"] == 1 + 1 + 2 and line["order_pairs"] == 0
    assert {k for k, d in line["planted_detection"].items() if d["n"]} == {"anachronism", "persona_swap"}
    assert line["verdict"] == "doubtful" and "order_flip_share could not be measured" in line["verdict_reasons"]
    assert json.loads(err.getvalue().split("projected: ", 1)[1])["largest_prompt_tokens"] < 1200 + 700
    with pytest.raises(CommandError, match="packet tokens: 100 is too few"):
        call_command("judge", str(judged_run.pk), "--packet-tokens", "100", stdout=io.StringIO())
    with pytest.raises(CommandError, match="dimensions: 'ghost' not in rubric 'default'"):
        call_command("judge", str(judged_run.pk), "--dimensions", "ghost", stdout=io.StringIO())
