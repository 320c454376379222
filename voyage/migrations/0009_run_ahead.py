from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("voyage", "0008_context_layout")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="run_ahead",
            field=models.PositiveSmallIntegerField(
                default=0, help_text="simultaneous schedule: ticks an agent may run ahead of the slowest while nobody "
                                     "near it has acted yet (0: lock-step, every tick waits for every call)"),
        ),
        migrations.AddField(
            model_name="run",
            name="leads",
            field=models.JSONField(blank=True, default=dict, editable=False,
                                   help_text="while live: how many ticks each agent (by persona key) has run ahead"),
        ),
    ]
