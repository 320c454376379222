from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("voyage", "0007_structured_outputs")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="context_layout",
            field=models.CharField(
                choices=[
                    ("seed", "seed: the hot window newest first, after the situation"),
                    ("cached", "cached: a chronological log of recent rows, then what changes every turn "
                               "(consecutive prompts share all but their tail: provider prefix caching)"),
                ],
                default="seed",
                max_length=8,
            ),
        ),
    ]
