"""Every prompt a function of what the run committed (docs/engine.md, "Every prompt from the record"):
against a model whose answers are drawn from the prompt's words (tests/words_server.py), a run killed
and resumed — lock-step and out of order, in both layouts —, stopped and continued, forked with
nothing changed, or replayed after a resume, makes the uninterrupted run_voyage's transcript, memory
tables and model calls, prompt for prompt, byte for byte; the inspector shows the prompt the engine
then sends; and `prompts audit` finds every sampled prompt equal, and a prompt that differs.

Each run is `run_voyage` in a process of its own on a scratch SQLite database (tests/prompt_lab.py);
the uninterrupted runs are made once per module and shared. Run with -s to see the table."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from memories.context import DREAM_HEADER, SUMMARIES_HEADER

from tests.oracle import assert_same
from tests.prompt_lab import Config, Lab, Made, same_calls
from tests.words_server import WordsServer
from voyage.bench.fleet import ScratchDB

TICKS = 60
KILL_FROM = 36  # recall has found rows for some agents by tick 17 (asserted below, on the killed run)
STOP_AT = 40
FORK_AT = 20
LONG_TICKS, LONG_KILL_FROM = 140, 115  # the first summaries come at about tick 76, dreams at 81

CONFIGS = [
    Config("edelweiss", layout="seed"),
    Config("edelweiss", layout="cached"),
    Config("edelweiss", layout="seed", run_ahead=3),
    Config("edelweiss", layout="cached", run_ahead=3),
    Config("1912", layout="seed", run_ahead=3),
    Config("1912", layout="cached"),
]


@pytest.fixture(scope="module")
def lab():
    # Latencies seeded by each request (a few ms): answers come back in an order of their own, so
    # out of order agents do run ahead.
    with WordsServer(lognormal=(3, 0.8)) as server, ScratchDB("sqlite") as db:
        yield Lab(db, server.base_url)


@pytest.fixture(scope="module")
def uninterrupted(lab):
    """The uninterrupted lock-step run of a configuration's scenario and layout, made once."""
    made = {}

    def reference(config: Config) -> Made:
        key = (config.scenario, config.layout)
        if key not in made:
            made[key] = Made(lab, lab.start(replace(config, run_ahead=0), TICKS))
        return made[key]
    return reference


@pytest.fixture(scope="module")
def killed(lab):
    """A configuration's run, SIGKILLed once it has committed KILL_FROM ticks and resumed: (its
    figures and calls, the tick it died at), made once."""
    made = {}

    def resumed(config: Config) -> tuple[Made, int]:
        if config not in made:
            run_id, at = lab.killed_at(config, TICKS, KILL_FROM)
            made[config] = (Made(lab, lab.resume(run_id)), at)
        return made[config]
    return resumed


def assert_same_run(made: Made, reference: Made, what: str) -> None:
    ours, theirs = made.figures, reference.figures
    table(what, theirs["transcript_sha256"], ours["transcript_sha256"], same_calls(made.calls, reference.calls))
    assert ours["ticks"] == theirs["ticks"]
    assert_same(made.events, reference.events, f"transcripts ({what})")
    assert ours["memory_sha256"] == theirs["memory_sha256"], what
    assert same_calls(made.calls, reference.calls) is None, what


def table(what: str, uninterrupted: str, resumed: str, difference: str | None) -> None:
    print(f"\n| {what} | {uninterrupted[:16]} | {resumed[:16]} | "
          f"{'yes' if difference is None else 'NO: ' + difference} |")


def assert_audit_equal(lab: Lab, run_id: int) -> None:
    result = lab.audit(run_id, "--sample", "60")
    print(f"\naudit of run {run_id}: {result}")
    assert result["audited"] == 60 and result["equal"] == 60, result


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: c.name.replace(" ", "-"))
def test_a_run_killed_where_recall_is_warm_resumes_to_the_same_prompts(lab, uninterrupted, killed, config):
    reference = uninterrupted(config)
    made, at = killed(config)
    assert KILL_FROM <= at < TICKS, f"the runner was not killed mid-run (tick {at})"
    warm = [c for c in reference.calls if c["recalled"] and c["tick"] < at]
    assert len(warm) >= 10, "recall found rows before the kill: the cache the resume must rebuild was warm"
    assert_same_run(made, reference, f"{config.name}, killed at tick {at}")
    if config.run_ahead:
        assert made.figures["lead_max"] >= 1, "out of order, some agent ran ahead"
    assert_audit_equal(lab, made.run_id)


@pytest.mark.parametrize("config", [Config("edelweiss", layout="cached"), Config("edelweiss", layout="seed", run_ahead=3)],
                         ids=lambda c: c.name.replace(" ", "-"))
def test_a_run_killed_once_its_prompts_show_summaries_and_dreams_resumes_to_the_same_prompts(lab, config):
    """Summaries and dreams are rows the memory jobs write (inline, as run_voyage does them): a resumed
    process shows the same ones, from the same tick."""
    reference = Made(lab, lab.start(replace(config, run_ahead=0), LONG_TICKS))
    run_id, at = lab.killed_at(config, LONG_TICKS, LONG_KILL_FROM)
    made = Made(lab, lab.resume(run_id))
    assert LONG_KILL_FROM <= at < LONG_TICKS, f"the runner was not killed mid-run (tick {at})"
    shown = [c for c in reference.calls if c["purpose"] == "action" and c["tick"] >= at]
    assert any(SUMMARIES_HEADER in json.dumps(c["prompt"]) for c in shown), "prompts after the kill show summaries"
    assert any(("You dream:" in json.dumps(c["prompt"]) or DREAM_HEADER in json.dumps(c["prompt"])) for c in shown)
    assert_same_run(made, reference, f"{config.name}, {LONG_TICKS} ticks, killed at tick {at}")
    assert_audit_equal(lab, made.run_id)


@pytest.mark.parametrize("layout", ["seed", "cached"])
def test_a_run_stopped_and_continued_sends_the_prompts_the_inspector_showed(lab, uninterrupted, layout):
    """A clean stop at STOP_AT (the process ends), the inspector's prompts for every agent there, and
    a new process that continues: the same run, and each agent's next call is what the inspector showed."""
    config = Config("edelweiss", layout=layout)
    reference = uninterrupted(config)
    first = lab.start(config, STOP_AT)
    run_id = first["run_id"]
    keys = sorted({c["agent"] for c in reference.calls if c["agent"]})
    shown = {key: lab.inspect(run_id, key) for key in keys}
    made = Made(lab, lab.resume(run_id, TICKS))
    assert_same_run(made, reference, f"edelweiss {layout}, stopped at tick {STOP_AT} and continued")
    sent = {c["agent"]: c for c in made.calls if c["tick"] == STOP_AT and c["purpose"] == "action"}
    assert len(sent) >= 4, "most agents act at the tick the run stopped at"
    for key, call in sent.items():
        assert shown[key]["tick"] == STOP_AT
        assert shown[key]["prompt"] == call["prompt"], f"{key}: the inspector showed another prompt"
    assert any(shown[key]["recalled"] for key in sent), "some prompt the inspector showed carries recalled rows"
    assert_audit_equal(lab, run_id)


def test_a_fork_with_nothing_changed_continues_as_its_parent_did(lab, uninterrupted):
    parent = uninterrupted(Config("edelweiss", layout="cached"))
    fork = lab.voyage("--fork", str(parent.run_id), "--at-tick", str(FORK_AT), "--ticks", str(FORK_AT + 40))
    made = Made(lab, fork)
    assert made.figures["ticks"] == FORK_AT + 40 == TICKS
    live = [c for c in made.calls if c["tick"] >= FORK_AT]
    assert same_calls(live, [c for c in parent.calls if c["tick"] >= FORK_AT]) is None
    assert_same_run(made, parent, f"edelweiss cached, forked at tick {FORK_AT} to {FORK_AT + 40}")
    assert_audit_equal(lab, made.run_id)


def test_a_replay_of_a_run_killed_while_recording_meets_the_prompts_it_recorded(lab, killed):
    recorded, _ = killed(Config("edelweiss", layout="seed"))
    replay = Made(lab, lab.voyage("--replay", str(recorded.run_id)))
    assert_same(replay.events, recorded.events)
    assert same_calls(replay.calls, recorded.calls) is None


TAMPER = """
import sys
from voyage.gateway.prompts import compress_messages
from voyage.models import LLMCall
call = LLMCall.objects.filter(run_id=int(sys.argv[-1]), purpose="action", tick=30).order_by("id").first()
messages = call.prompt
messages[-1]["content"] = messages[-1]["content"].replace("It is", "It was", 1)
LLMCall.objects.filter(pk=call.pk).update(prompt_z=compress_messages(messages))
print('{"call": %d}' % call.pk)
"""


def test_the_audit_reports_a_prompt_that_differs(lab, uninterrupted):
    run_id = lab.start(Config("edelweiss", layout="seed"), 32)["run_id"]
    tampered = lab.script(TAMPER, run_id)[0]["call"]
    result = lab.audit(run_id, "--sample", "100000")
    print(f"\naudit of run {run_id}, one prompt changed: {result}")
    assert result["audited"] > 200 and result["equal"] == result["audited"] - 1
    first = result["first_difference"]
    assert first["call"] == tampered and first["tick"] == 30 and first["purpose"] == "action"
    assert "It is" in first["excerpt"]["rebuilt"] and "It was" in first["excerpt"]["recorded"]


def test_the_audit_refuses_an_empty_sample(lab):
    import subprocess

    from voyage.bench.fleet import MANAGE, ROOT
    done = subprocess.run(MANAGE + ["prompts", "audit", "1", "--sample", "0"], env=lab.db.env(), cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode != 0 and "--sample must be 1 or more" in done.stderr
