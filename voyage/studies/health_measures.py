"""The model-health measures (voyage/health) in the studies' registry: per run and day, from the
runs' recorded action calls, read once per results table for all its runs."""
from __future__ import annotations

from voyage.health.load import action_calls, name_shape
from voyage.health.shares import grouped, summarise, verdicts
from voyage.models import Run
from voyage.studies.measure_registry import measure
from voyage.studies.tables import RunInfo, Tables


def _health(t: Tables, run: RunInfo, day: int) -> dict:
    """That day's health figures of the run (cached on the tables: every measure below reads them)."""
    cache = t.__dict__.setdefault("_model_health", {})
    if not cache:
        scenarios = dict(Run.objects.filter(pk__in=t.run_ids).values_list("pk", "scenario_id"))
        for run_id, calls in action_calls(t.run_ids).items():
            shape = name_shape(scenarios[run_id])
            info = t.runs[run_id]
            days = grouped(verdicts(calls), lambda v: info.day_of(v.call.tick))
            cache.update({(run_id, d): summarise(g, shape) for d, g in days.items()})
        cache.setdefault(None, {})  # loaded, even with no calls at all
    return cache.get((run.id, day)) or summarise([])


@measure("example_copy_share", "share of that day's answered action calls that are the turn's example answer, key "
                               "for key (valid, but not the model's own choice), 0-1")
def example_copy_share(t: Tables, run: RunInfo, day: int) -> float | None:
    return _health(t, run, day)["example_copy_share"]


@measure("repeat_share", "share of that day's answers that choose the same action, target and dialogue as the "
                         "agent's own previous answer (among answers that had one), 0-1")
def repeat_share(t: Tables, run: RunInfo, day: int) -> float | None:
    return _health(t, run, day)["repeat_share"]


@measure("distinct_dialogue_share", "distinct dialogue lines over dialogue lines said in that day's answers, 0-1")
def distinct_dialogue_share(t: Tables, run: RunInfo, day: int) -> float | None:
    return _health(t, run, day)["distinct_dialogue_share"]


@measure("ignored_field_share", "share of that day's answered action calls that fill in a key their action does not "
                                "use (a volume or dialogue on anything but communicate: set aside, at no cost), 0-1")
def ignored_field_share(t: Tables, run: RunInfo, day: int) -> float | None:
    return _health(t, run, day)["ignored_field_share"]


@measure("action_fail_reasons", "share of that day's action calls that ended in ACTION_FAIL for each reason (names "
                                "replaced by <person>, <item>, <room>, <target>, <value>), one column per reason met")
def action_fail_reasons(t: Tables, run: RunInfo, day: int) -> dict:
    return _health(t, run, day)["action_fail_reasons"]


@measure("action_evenness", "Pielou's evenness of the action types chosen that day over the actions the turns "
                            "allowed: 1 every allowed action equally often, 0 one action every turn, 0-1")
def action_evenness(t: Tables, run: RunInfo, day: int) -> float | None:
    return _health(t, run, day)["action_evenness"]



