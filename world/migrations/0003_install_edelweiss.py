"""Install the second shipped scenario, Sanatorium Edelweiss (world/scenarios/edelweiss.yaml)."""
from django.db import migrations


def install_edelweiss(apps, schema_editor):
    from world.scenarios.files import import_yaml, shipped_file

    if not apps.get_model("world", "Scenario").objects.filter(slug="edelweiss").exists():
        import_yaml(shipped_file("edelweiss").read_text(encoding="utf-8"), apps=apps)


def remove_edelweiss(apps, schema_editor):
    from world.scenarios.files import delete_scenario

    for scenario in apps.get_model("world", "Scenario").objects.filter(slug="edelweiss"):
        delete_scenario(scenario, apps)


class Migration(migrations.Migration):
    dependencies = [("world", "0002_install_1912")]
    operations = [migrations.RunPython(install_edelweiss, remove_edelweiss)]
