from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("voyage", "0008_context_layout")]

    operations = [
        migrations.AddField(model_name="llmcall", name="abandoned", field=models.BooleanField(default=False)),
    ]
