"""export_tables: one CSV per table with its documented columns, read back with the csv module as
pandas.read_csv would read it; the rows are the run's, and the agent states folded from the event
log end where the database's agent_state is."""
from __future__ import annotations

import csv

import pytest
from django.core.management import call_command
from django.db.models import Sum

from memories.models import Memory, TrustHistory
from voyage.engine.runner import advance, create_run
from voyage.export.tables import TABLES
from voyage.models import Event, LLMCall
from world.models import AgentState, Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def tables(tmp_path):
    run = create_run(Scenario.objects.get(slug="1912"), seed=11, target_ticks=90)
    advance(run, 90)
    call_command("export_tables", str(run.pk), "-o", str(tmp_path))
    read = {}
    for name in TABLES:
        with (tmp_path / f"{name}.csv").open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            read[name] = (reader.fieldnames, list(reader))
    return run, read


def test_each_table_has_its_documented_columns_and_the_runs_rows(tables):
    run, read = tables
    for name, (columns, _) in TABLES.items():
        assert read[name][0] == columns, name
    assert len(read["events"][1]) == Event.objects.filter(run=run).count()
    assert len(read["memories"][1]) == Memory.objects.filter(run=run).count()
    assert len(read["trust_history"][1]) == TrustHistory.objects.filter(entry__run=run).count() > 0
    assert len(read["model_calls"][1]) == LLMCall.objects.filter(run=run).count()
    assert len(read["rung_changes"][1]) == Event.objects.filter(run=run, kind="rung").count() > 0
    texts = {r["text"] for r in read["memories"][1]}
    assert set(Memory.objects.filter(run=run).values_list("text", flat=True)) == texts  # newlines, quotes survive


def test_model_calls_carry_usage_and_never_the_prompt(tables):
    run, read = tables
    columns, rows = read["model_calls"]
    assert not {"prompt", "prompt_z", "raw_answer"} & set(columns)
    assert sum(int(r["prompt_tokens"]) for r in rows) == LLMCall.objects.filter(run=run).aggregate(
        n=Sum("prompt_tokens"))["n"]


def test_agent_states_end_where_the_database_does(tables):
    run, read = tables
    last = {}
    for row in read["agent_states"][1]:
        assert int(row["tick"]) <= run.tick
        last[row["agent"]] = (row["room"], row["asleep"] == "true", row["alive"] == "true", int(row["rung"]))
    in_db = {a.persona.key: (a.location.key, a.asleep, a.alive, a.rung)
             for a in AgentState.objects.filter(run=run).select_related("persona", "location")}
    assert last == in_db
    assert len(read["agent_states"][1]) > len(in_db)  # changes were recorded, not just the start
