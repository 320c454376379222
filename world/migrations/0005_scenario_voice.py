"""A scenario's voice and phrasebook (Scenario.voice, Scenario.phrasebook, world/scenarios/voice.py):
the texts the engine says about its world, and the offline policy's lines. The shipped scenarios
installed before it get their files' texts, once."""
from django.db import migrations, models


def write_down(apps, schema_editor):
    import yaml

    from world.scenarios.files import shipped_file

    Scenario = apps.get_model("world", "Scenario")
    for slug in ("1912", "edelweiss"):
        data = yaml.safe_load(shipped_file(slug).read_text(encoding="utf-8"))
        for field in ("voice", "phrasebook"):
            Scenario.objects.filter(slug=slug, **{field: {}}).update(**{field: data.get(field) or {}})


class Migration(migrations.Migration):
    dependencies = [("world", "0004_rung_knows")]
    operations = [
        migrations.AddField(model_name="scenario", name="voice", field=models.JSONField(blank=True, default=dict)),
        migrations.AddField(model_name="scenario", name="phrasebook", field=models.JSONField(blank=True, default=dict)),
        migrations.RunPython(write_down, migrations.RunPython.noop),
    ]
