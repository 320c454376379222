"""A run's state is written by one module (voyage/run_transitions.py), through named transitions that
refuse an impossible move with a clear message; nothing else in the code writes it."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.engine_helpers import new_run
from voyage import run_transitions as transitions
from voyage.models import Run
from voyage.run_transitions import ImpossibleTransition

ROOT = Path(__file__).resolve().parents[2]
THE_WRITER = ROOT / "voyage" / "run_transitions.py"


def state_writes(source: str) -> list[int]:
    """Lines that write a run's state: `<Run...>.update(state=...)`, or `x.state = Run.X` (alone or
    in a tuple)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update" \
                and any(k.arg == "state" for k in node.keywords) and _root(node.func.value) == "Run":
            lines.append(node.lineno)
        if isinstance(node, ast.Assign) and _names_a_run_state(node.value) and any(
                isinstance(t, ast.Attribute) and t.attr == "state" for target in node.targets
                for t in (target.elts if isinstance(target, ast.Tuple) else [target])):
            lines.append(node.lineno)
    return lines


def _root(node) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _names_a_run_state(value) -> bool:
    return any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "Run"
               for n in ast.walk(value))


def test_nothing_but_run_transitions_writes_a_runs_state():
    elsewhere = {}
    for path in [*ROOT.glob("voyage/**/*.py"), *ROOT.glob("memories/**/*.py"), *ROOT.glob("world/**/*.py")]:
        if path != THE_WRITER and "migrations" not in path.parts:
            if lines := state_writes(path.read_text()):
                elsewhere[str(path.relative_to(ROOT))] = lines
    assert elsewhere == {}, f"a run's state is written outside voyage/run_transitions.py: {elsewhere}"


@pytest.mark.parametrize("source", [
    "Run.objects.filter(pk=1).update(state=Run.PAUSED)\n",
    "Run.objects.filter(pk=1).exclude(tick=3).update(error='', state='failed')\n",
    "run.state = Run.FINISHED\n",
    "run.state, run.pause_reason = Run.PAUSED, why\n",
])
def test_the_scan_finds_a_write(source):
    assert state_writes(source) == [1]


def test_the_scan_leaves_a_studys_state_and_a_filter_alone():
    assert state_writes("Study.objects.filter(pk=1).update(state=Study.FINISHED)\nstudy.state = Study.FINISHED\n"
                        "Run.objects.filter(state=Run.PAUSED).update(pause_reason='')\n") == []


@pytest.mark.django_db
def test_an_impossible_transition_is_refused_with_its_message():
    run = new_run()
    transitions.finish(run)
    with pytest.raises(ImpossibleTransition, match=rf"^run {run.pk} is finished: only a run that is queued or running "
                                                   r"can be paused$"):
        transitions.pause(run.pk)
    with pytest.raises(ImpossibleTransition, match=rf"run {run.pk} is finished: .* can be finished"):
        transitions.finish(run)
    assert Run.objects.get(pk=run.pk).state == Run.FINISHED


@pytest.mark.django_db
def test_a_transition_moves_the_row_and_the_object_together():
    run = new_run()
    transitions.start_in_foreground(run)
    assert transitions.pause_itself(run, "the budget ran out")
    saved = Run.objects.get(pk=run.pk)
    assert (run.state, run.pause_reason) == (saved.state, saved.pause_reason) == (Run.PAUSED, "the budget ran out")


@pytest.mark.django_db
def test_a_condition_that_does_not_hold_is_a_race_not_a_refusal():
    run = new_run()
    assert not transitions.fail(run, "boom", where={"claimed_by": "someone else"})
    assert Run.objects.get(pk=run.pk).state == Run.QUEUED


@pytest.mark.django_db
def test_the_foreground_life_cycle():
    from voyage.runs.foreground import in_the_foreground

    finished, failed, interrupted = new_run(), new_run(), new_run()
    with in_the_foreground(finished):
        assert Run.objects.get(pk=finished.pk).state == Run.RUNNING
    with pytest.raises(ValueError), in_the_foreground(failed):
        raise ValueError("no model")
    with pytest.raises(KeyboardInterrupt), in_the_foreground(interrupted):
        raise KeyboardInterrupt
    states = {r.pk: (r.state, r.error) for r in Run.objects.filter(pk__in=[finished.pk, failed.pk, interrupted.pk])}
    assert states == {finished.pk: (Run.FINISHED, ""), failed.pk: (Run.FAILED, "ValueError: no model"),
                      interrupted.pk: (Run.PAUSED, "KeyboardInterrupt: ")}
