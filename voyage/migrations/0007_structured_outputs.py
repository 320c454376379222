"""ModelProfile.structured_output replaces supports_json_mode: a profile with a JSON mode keeps
json_object (what it sent before), one without becomes none."""
from django.db import migrations, models


def from_json_mode(apps, schema_editor):
    ModelProfile = apps.get_model("voyage", "ModelProfile")
    ModelProfile.objects.filter(supports_json_mode=False).update(structured_output="none")


def to_json_mode(apps, schema_editor):
    ModelProfile = apps.get_model("voyage", "ModelProfile")
    ModelProfile.objects.filter(structured_output="none").update(supports_json_mode=False)


class Migration(migrations.Migration):
    dependencies = [("voyage", "0006_fork_and_api_tokens")]

    operations = [
        migrations.AddField(
            model_name="modelprofile",
            name="structured_output",
            field=models.CharField(
                choices=[
                    ("none", "none: no JSON mode; the prompt asks for JSON and it is extracted from the answer"),
                    ("json_object", 'json_object: response_format {"type": "json_object"}, no schema'),
                    ("json_schema", 'json_schema: {"type": "json_schema", "json_schema": {name, schema, strict}} '
                                    "(OpenAI, vLLM, OpenRouter, llama.cpp's llama-server)"),
                    ("json_object_schema", 'json_object_schema: {"type": "json_object", "schema": ...} '
                                           "(llama-cpp-python's server)"),
                ],
                default="json_object",
                help_text="how the endpoint takes a JSON answer; with a schema form every action call carries the "
                          "six-key schema built for that agent and turn (what its rung allows, whom it can name)",
                max_length=20,
            ),
        ),
        migrations.RunPython(from_json_mode, to_json_mode),
        migrations.RemoveField(model_name="modelprofile", name="supports_json_mode"),
    ]
