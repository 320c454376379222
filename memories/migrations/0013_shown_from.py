"""When a summary, era or dream shows in prompts: `shown_from`, the first tick whose prompts show it
(its job's tick + SHOW_LAG, memories/job_records.py). Rows written before keep 0: they show at once,
as they did."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('memories', '0012_pending_jobs_as_records'),
    ]

    operations = [
        migrations.AddField(
            model_name='dream',
            name='shown_from',
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name='memorysummary',
            name='shown_from',
            field=models.IntegerField(default=0),
        ),
        migrations.AddIndex(
            model_name='dream',
            index=models.Index(fields=['run', 'shown_from'], name='dream_run_shown'),
        ),
        migrations.AddIndex(
            model_name='memorysummary',
            index=models.Index(fields=['run', 'shown_from'], name='summary_run_shown'),
        ),
    ]
