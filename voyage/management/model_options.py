"""Command-line options choosing a run's model: a named profile, a one-off endpoint, a replay of a
recorded run, and a budget. Shared by the commands that start runs (run_voyage and the like).

Bad input is a CommandError that says what to do. A value given to --api-key-env is never echoed
back: someone may have pasted the key itself there.
"""
from __future__ import annotations

import os
import re
from decimal import Decimal, InvalidOperation
from urllib.parse import urlparse

from django.core.management.base import CommandError

from voyage.gateway import providers
from voyage.gateway.routes import parse_route, route_problems
from voyage.models import ENV_NAME, ModelProfile, Run

ONE_OFF = ("model", "api_key_env", "timeout", "concurrency", "structured_output")
# The fields a one-off profile is found again by (the JSON ones a provider fills in follow from these).
MATCHED = ("kind", "base_url", "api_key_env", "model", "provider", "structured_output", "schema_dialect",
           "timeout_s", "concurrency")

# Run fields that are not parameters of the simulation: a replay does not copy them.
NOT_PARAMETERS = {"id", "uuid", "name", "scenario", "profile", "replay_of", "forked_from", "fork_tick", "target_ticks", "tick", "state",
                  "error", "pause_reason", "claimed_by", "heartbeat_at", "created_at", "budget_tokens", "budget_cost",
                  "leads"}


def add_model_options(parser) -> None:
    group = parser.add_argument_group("model (default: the offline scripted policy)")
    group.add_argument("--profile", metavar="NAME", help="a model profile from the admin")
    group.add_argument("--provider", choices=providers.NAMES,
                       help="a one-off endpoint of this provider: its base URL (unless --base-url), structured-output "
                            "form and schema dialect, reasoning switches and request body (docs/providers.md)")
    group.add_argument("--profile-for", action="append", metavar="GROUP=NAME",
                       help="another profile for a group of calls: actions=NAME, memory=NAME (compaction, eras, "
                            "dreams, diary, trust, reflection, importance, bulletin), instruments=NAME (interviews, "
                            "surveys), or agent:PERSONA_KEY=NAME for that agent's actions; repeatable")
    group.add_argument("--base-url", metavar="URL", help="a one-off OpenAI-compatible endpoint, e.g. "
                                                         "https://openrouter.ai/api/v1")
    group.add_argument("--model", metavar="NAME", help="with --base-url (default google/gemma-4-31b-it)")
    group.add_argument("--api-key-env", metavar="VAR", help="with --base-url: the NAME of the environment "
                                                            "variable holding the key")
    group.add_argument("--timeout", type=float, metavar="S", help="with --base-url: seconds per attempt")
    group.add_argument("--concurrency", type=int, metavar="N", help="with --base-url: calls in flight at once")
    group.add_argument("--structured-output", choices=[f for f, _ in ModelProfile.STRUCTURED_OUTPUTS],
                       help="with --base-url: how the endpoint takes a JSON answer (default json_object; "
                            "json_schema or json_object_schema send each action's schema)")
    group.add_argument("--replay", type=int, metavar="RUN_ID",
                       help="a new run whose answers come from RUN_ID's recorded calls")
    group.add_argument("--budget-tokens", type=int, metavar="N", help="pause the run once its calls used N tokens")
    group.add_argument("--budget-cost", metavar="X", help="pause the run once its calls cost X")


def profile_from_options(options) -> ModelProfile | None:
    name, base_url, provider = options.get("profile"), options.get("base_url"), options.get("provider")
    if provider and not base_url:
        base_url = options["base_url"] = providers.provider(provider).base_url or None
        if not base_url:
            raise CommandError(f"--provider {provider} has no base URL of its own: give --base-url URL")
    one_off = [k for k in ONE_OFF if options.get(k) is not None]
    if name and base_url:
        raise CommandError("give --profile NAME or --base-url URL (or --provider NAME), not both")
    if one_off and not base_url:
        flags = ", ".join("--" + k.replace("_", "-") for k in one_off)
        raise CommandError(f"{flags} go with --base-url or --provider (a profile carries its own settings)")
    if options.get("replay") and (name or base_url):
        raise CommandError("--replay takes every answer from the recorded run: it uses no model profile")
    if name:
        try:
            profile = ModelProfile.objects.get(name=name)
        except ModelProfile.DoesNotExist:
            known = ", ".join(ModelProfile.objects.values_list("name", flat=True)) or "none"
            raise CommandError(f"there is no model profile {name!r} (defined: {known})") from None
    elif base_url:
        profile = one_off_profile(options)
    else:
        return None
    if profile.kind == ModelProfile.OPENAI and profile.api_key_env and not os.environ.get(profile.api_key_env):
        raise CommandError(f"profile {profile.name!r} reads its API key from ${profile.api_key_env}, which is not set")
    return profile


def routes_from_options(options, agent_keys=None) -> dict:
    """The run's profile routes from the --profile-for options ({} when none is given)."""
    given = options.get("profile_for") or []
    if not given:
        return {}
    if options.get("replay"):
        raise CommandError("--replay takes every answer from the recorded run: it uses no --profile-for")
    routes = {}
    for text in given:
        try:
            key, name = parse_route(text)
        except ValueError as exc:
            raise CommandError(f"--profile-for {exc}") from None
        routes[key] = name
    names = set(ModelProfile.objects.values_list("name", flat=True))
    problems = route_problems(routes, agent_keys, names)
    if problems:
        raise CommandError("--profile-for: " + "; ".join(problems) + f" (defined profiles: "
                           f"{', '.join(sorted(names)) or 'none'})")
    for profile in ModelProfile.objects.filter(name__in=set(routes.values())):
        if profile.kind == ModelProfile.OPENAI and profile.api_key_env and not os.environ.get(profile.api_key_env):
            raise CommandError(f"profile {profile.name!r} reads its API key from ${profile.api_key_env}, which is not set")
    return routes


def one_off_profile(options) -> ModelProfile:
    """The profile for --base-url and friends: an existing one with the same settings, or a new one
    (runs keep their profile, so a run started this way can be resumed by the worker)."""
    url = options["base_url"]
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise CommandError(f"--base-url {url!r} is not an http(s) URL")
    env = options.get("api_key_env") or ""
    if env and not re.match(ENV_NAME, env):
        raise CommandError("--api-key-env takes the NAME of an environment variable (like OPENROUTER_API_KEY), "
                           "not the key itself")
    if options.get("timeout") is not None and options["timeout"] <= 0:
        raise CommandError("--timeout must be more than 0 seconds")
    if options.get("concurrency") is not None and not 1 <= options["concurrency"] <= 1000:
        raise CommandError("--concurrency must be between 1 and 1000")
    fields = {"kind": ModelProfile.OPENAI, "base_url": url, "api_key_env": env,
              "model": options.get("model") or ModelProfile._meta.get_field("model").default}
    if options.get("provider"):  # the provider's defaults, under what the options say
        made = ModelProfile.for_provider(options["provider"], base_url=url, model=fields["model"],
                                         api_key_env=env or None)
        fields = {f.name: getattr(made, f.name) for f in ModelProfile._meta.concrete_fields if f.name not in ("id", "name")}
    if options.get("timeout") is not None:
        fields["timeout_s"] = options["timeout"]
    if options.get("concurrency") is not None:
        fields["concurrency"] = options["concurrency"]
    if options.get("structured_output") is not None:
        fields["structured_output"] = options["structured_output"]
    if fields["api_key_env"] and not os.environ.get(fields["api_key_env"]):  # before anything is written
        raise CommandError(f"the endpoint's API key is read from ${fields['api_key_env']}, which is not set "
                           "(--api-key-env NAME names another variable)")
    existing = ModelProfile.objects.filter(**{k: v for k, v in fields.items() if k in MATCHED}).order_by("id").first()
    if existing:
        return existing
    base = f"{fields['model']} @ {parsed.netloc}"[:70]
    name, n = base, 1
    while ModelProfile.objects.filter(name=name).exists():
        n += 1
        name = f"{base} ({n})"
    return ModelProfile.objects.create(name=name, **fields)


def budget_from_options(options) -> dict:
    """Budget fields to set on the run (only those given)."""
    out = {}
    if options.get("budget_tokens") is not None:
        if options["budget_tokens"] < 1:
            raise CommandError("--budget-tokens must be at least 1")
        out["budget_tokens"] = options["budget_tokens"]
    if options.get("budget_cost") is not None:
        try:
            cost = Decimal(options["budget_cost"])
        except InvalidOperation:
            raise CommandError(f"--budget-cost {options['budget_cost']!r} is not a number") from None
        if not cost.is_finite() or cost <= 0:
            raise CommandError("--budget-cost must be more than 0")
        out["budget_cost"] = cost
    return out


def replay_source(options) -> Run | None:
    if not options.get("replay"):
        return None
    if options.get("run"):
        raise CommandError("--replay starts a new run; it cannot continue --run")
    try:
        return Run.objects.get(pk=options["replay"])
    except Run.DoesNotExist:
        raise CommandError(f"there is no run {options['replay']} to replay") from None


def replay_fields(source: Run) -> dict:
    """A new run's fields for replaying `source`: same scenario, seed, schedule and parameters."""
    params = {f.name: getattr(source, f.name) for f in Run._meta.concrete_fields if f.name not in NOT_PARAMETERS}
    return {"scenario": source.scenario, "replay_of": source, "name": f"replay of run {source.pk}", **params}
