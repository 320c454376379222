"""What an endpoint does with each structured-output form: `python manage.py endpoint check`.

    manage.py endpoint check --profile NAME
    manage.py endpoint check --provider vllm [--base-url URL] --model NAME [--api-key-env VAR] [--json]

One request per form (none, json_object, json_schema, json_object_schema), the schema forms with a
real action schema of a sample turn in the profile's dialect (voyage.gateway.probe): one line per
form, "takes it and enforces it", "takes it but ignores the schema", "refuses it (the provider's
words)" or "failed (why)"; with --json, one JSON line. Nothing is written: a one-off endpoint is
checked as an unsaved profile.
"""
import json

from django.core.management.base import BaseCommand, CommandError

from voyage.gateway import providers
from voyage.gateway.openai_client import GatewayConfig
from voyage.gateway.probe import probe_forms
from voyage.models import ENV_NAME, ModelProfile


class Command(BaseCommand):
    help = "Check which structured-output forms an endpoint takes, enforces, ignores or refuses."

    def add_arguments(self, parser):
        parser.add_argument("what", choices=["check"])
        parser.add_argument("--profile", metavar="NAME", help="a saved model profile")
        parser.add_argument("--provider", choices=providers.NAMES, help="a one-off endpoint of this provider")
        parser.add_argument("--base-url", metavar="URL", help="with --provider: instead of its usual base URL")
        parser.add_argument("--model", metavar="NAME", help="with --provider: the model to ask")
        parser.add_argument("--api-key-env", metavar="VAR", help="with --provider: the NAME of the key's variable")
        parser.add_argument("--json", action="store_true", help="one JSON line")

    def handle(self, *args, **options):
        profile = self.profile(options)
        verdicts = probe_forms(GatewayConfig.from_profile(profile))
        if options["json"]:
            self.stdout.write(json.dumps({"profile": profile.name, "provider": profile.provider,
                                          "base_url": profile.base_url, "schema_dialect": profile.schema_dialect,
                                          "forms": [v.as_dict() for v in verdicts]}))
            return
        self.stdout.write(f"{profile.name} ({profile.provider}, {profile.base_url}, dialect {profile.schema_dialect}):")
        for verdict in verdicts:
            self.stdout.write(f"  {verdict}")

    def profile(self, options) -> ModelProfile:
        import re

        one_off = [k for k in ("base_url", "model", "api_key_env") if options.get(k)]
        if options.get("profile"):
            if options.get("provider") or one_off:
                raise CommandError("give --profile NAME, or --provider NAME with its options, not both")
            try:
                return ModelProfile.objects.get(name=options["profile"])
            except ModelProfile.DoesNotExist:
                known = ", ".join(ModelProfile.objects.values_list("name", flat=True)) or "none"
                raise CommandError(f"there is no model profile {options['profile']!r} (defined: {known})") from None
        if not options.get("provider"):
            raise CommandError("give --profile NAME or --provider NAME")
        if options.get("api_key_env") and not re.match(ENV_NAME, options["api_key_env"]):
            raise CommandError("--api-key-env takes the NAME of an environment variable, not the key itself")
        profile = ModelProfile.for_provider(options["provider"], base_url=options.get("base_url"),
                                            model=options.get("model"), api_key_env=options.get("api_key_env"))
        if not profile.base_url:
            raise CommandError(f"--provider {options['provider']} has no base URL of its own: give --base-url URL")
        profile.name = f"{profile.model} @ {profile.base_url}"
        return profile
