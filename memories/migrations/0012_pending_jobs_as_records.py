"""Pending memory jobs as records (memories/job_records.py): the tick and the agent as columns, the
rest by key in `inputs`, instead of a list read by position (`args`). Rows already queued in either
older shape are rewritten here, their tick read from the end of their name as the code did:
- a compaction: [run_id, agent_id, tick] or [run_id, agent_id, tick, below_row, rung];
- dreams: [run_id, [[agent_id, slept_since], ...]] or with [agent_id, slept_since, upto_row, rung,
  people] per sleeper.
A row older than the job field (job "") keeps no inputs: it is let go when its turn comes, as before."""

import django.db.models.deletion
from django.db import migrations, models

SLEEPER_FIELDS = ("agent_id", "slept_since", "upto_row", "rung", "people")


def tick_in(name):
    tail = name.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else None


def keyed(job, args):
    """(agent id, inputs) of a row stored as a list."""
    if job == "compact_agent":
        below_row, rung = (list(args[3:5]) + [None, None])[:2]
        return args[1], {"below_row": below_row, "rung": rung}
    if job == "dreams":
        return None, {"sleepers": [dict(zip(SLEEPER_FIELDS, (list(s) + [None] * 3)[:5])) for s in args[1]]}
    return None, {}


def positional(job, run_id, tick, agent_id, inputs):
    """The list a row held before (to migrate backwards)."""
    if job == "compact_agent":
        return [run_id, agent_id, tick, inputs.get("below_row"), inputs.get("rung")]
    if job == "dreams":
        return [run_id, [[s[f] for f in SLEEPER_FIELDS] for s in inputs.get("sleepers", [])]]
    return []


def forwards(apps, schema_editor):
    Pending = apps.get_model("memories", "PendingMemoryJob")
    for row in Pending.objects.all():
        row.agent_id, row.inputs = keyed(row.job, row.args)
        row.tick = tick_in(row.name)
        row.save(update_fields=["agent", "inputs", "tick"])


def backwards(apps, schema_editor):
    Pending = apps.get_model("memories", "PendingMemoryJob")
    for row in Pending.objects.all():
        row.args = positional(row.job, row.run_id, row.tick, row.agent_id, row.inputs)
        row.save(update_fields=["args"])


class Migration(migrations.Migration):

    dependencies = [
        ('memories', '0011_pending_job_claims'),
        ('world', '0005_scenario_voice'),
    ]

    operations = [
        migrations.AddField(
            model_name='pendingmemoryjob',
            name='agent',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                                    related_name='+', to='world.agentstate'),
        ),
        migrations.AddField(
            model_name='pendingmemoryjob',
            name='inputs',
            field=models.JSONField(default=dict),
        ),
        migrations.AddField(
            model_name='pendingmemoryjob',
            name='tick',
            field=models.IntegerField(blank=True, null=True),
        ),
        migrations.RunPython(forwards, backwards),
        migrations.RemoveField(
            model_name='pendingmemoryjob',
            name='args',
        ),
    ]
