from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("voyage", "0010_profile_routes_and_example_answer")]

    operations = [
        migrations.AddField(model_name="llmcall", name="abandoned", field=models.BooleanField(default=False)),
    ]
