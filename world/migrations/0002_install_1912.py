"""Install the default scenario, 1912 (world/scenarios/data_1912.py)."""
from django.db import migrations


def install_1912(apps, schema_editor):
    from world.scenarios.install import builtin, install

    Scenario = apps.get_model("world", "Scenario")
    if not Scenario.objects.filter(slug="1912").exists():
        install(builtin("1912"), apps)


def remove_1912(apps, schema_editor):
    apps.get_model("world", "Scenario").objects.filter(slug="1912").delete()


class Migration(migrations.Migration):
    dependencies = [("world", "0001_initial")]
    operations = [migrations.RunPython(install_1912, remove_1912)]
