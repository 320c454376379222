"""A uuid on each memory summary: a run's fixture names summaries by it (voyage/export), since row
ids differ between databases. Existing rows get theirs before the column becomes unique."""
import uuid

from django.db import migrations, models


def give_uuids(apps, schema_editor):
    MemorySummary = apps.get_model("memories", "MemorySummary")
    for pk in MemorySummary.objects.values_list("pk", flat=True).iterator(chunk_size=2000):
        MemorySummary.objects.filter(pk=pk).update(uuid=uuid.uuid4())


class Migration(migrations.Migration):
    dependencies = [("memories", "0006_pending_memory_jobs")]

    operations = [
        migrations.AddField("memorysummary", "uuid", models.UUIDField(null=True, editable=False)),
        migrations.RunPython(give_uuids, migrations.RunPython.noop),
        migrations.AlterField("memorysummary", "uuid",
                              models.UUIDField(default=uuid.uuid4, unique=True, editable=False)),
    ]
