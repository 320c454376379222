"""Rungs say what they reveal (Rung.knows). The installed ladders (1912, edelweiss) had it implied by
their level: 0 knows nothing, 1 its name, the setting and the names and labels of things and people,
2 also its life on paper, its fear and its secret. Write that down as data, once."""
from django.db import migrations, models

NAME_RUNG = ["own_name", "setting", "item_names", "people_names", "trust_labels"]
BY_LEVEL = {0: [], 1: NAME_RUNG, 2: NAME_RUNG + ["history", "fear", "secret"]}


def write_down(apps, schema_editor):
    Rung = apps.get_model("world", "Rung")
    for rung in Rung.objects.filter(knows=[]):
        if rung.level in BY_LEVEL and BY_LEVEL[rung.level]:
            rung.knows = BY_LEVEL[rung.level]
            rung.save(update_fields=["knows"])


class Migration(migrations.Migration):
    dependencies = [("world", "0003_install_edelweiss")]
    operations = [
        migrations.AddField(
            model_name="rung",
            name="knows",
            field=models.JSONField(blank=True, default=list, help_text="what an agent at this rung knows, all of it "
                                   "(not only what it adds), a JSON list of: own_name, setting, item_names, "
                                   "people_names, trust_labels, history, fear, secret"),
        ),
        migrations.RunPython(write_down, migrations.RunPython.noop),
    ]
