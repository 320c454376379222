"""Install the default scenario, 1912 (world/scenarios/1912.yaml), by the same path as every
scenario file."""
from django.db import migrations


def install_1912(apps, schema_editor):
    from world.scenarios.files import import_yaml, shipped_file

    if not apps.get_model("world", "Scenario").objects.filter(slug="1912").exists():
        import_yaml(shipped_file("1912").read_text(encoding="utf-8"), apps=apps)


def remove_1912(apps, schema_editor):
    from world.scenarios.files import delete_scenario

    for scenario in apps.get_model("world", "Scenario").objects.filter(slug="1912"):
        delete_scenario(scenario, apps)


class Migration(migrations.Migration):
    dependencies = [("world", "0001_initial")]
    operations = [migrations.RunPython(install_1912, remove_1912)]
