from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("memories", "0010_pending_jobs_recorded_with_their_tick")]

    operations = [
        migrations.AddField(model_name="pendingmemoryjob", name="claimed_by",
                            field=models.CharField(blank=True, default="", max_length=80)),
        migrations.AddField(model_name="pendingmemoryjob", name="lease_until",
                            field=models.DateTimeField(blank=True, null=True)),
    ]
