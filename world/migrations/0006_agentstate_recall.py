"""The context builder's recall state in the agent's row (memories.context): a prompt is a function of
the committed run and the tick, so what recall found, and where its block stands, is committed with
the tick and loaded with the world. Existing agents start with none: their next prompt searches."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("world", "0005_scenario_voice")]

    operations = [
        migrations.AddField(
            model_name="agentstate",
            name="recall",
            field=models.JSONField(blank=True, default=dict, help_text=(
                "the context builder's recall, as the agent's last prompt left it (memories.context): the names "
                "it searched, the row count it searched at, the rows found and the place of their block in the log")),
        ),
    ]
