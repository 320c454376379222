"""Run a voyage in the foreground: `.venv/bin/python manage.py run_voyage --scenario 1912 --days 1`.

Prints a progress bar on stderr and, at the end, one JSON line on stdout. The run's memory jobs
(compaction, dreams) are done here after each tick's commit, unless `--memory-worker` says a memory
cluster is running to take them."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from voyage.calls.factory import gateway_for
from voyage.calls.replay import ReplayMissing
from voyage.calls.usage import usage_by_profile
from voyage.engine.runner import Stopwatch, advance, create_run, run_summary
from voyage.gateway.base import GatewayConfigError  # not via openai_client: the OpenAI SDK loads only for an endpoint
from voyage.gateway.in_flight import InFlightMeter
from voyage.health.load import health_line, health_of
from voyage.management.fork_options import add_fork_options, fork_from_options
from voyage.management.model_options import (add_model_options, budget_from_options, profile_from_options,
                                             replay_fields, replay_source, routes_from_options)
from voyage.models import MAX_RUN_AHEAD, Run
from voyage.runs.foreground import in_the_foreground
from voyage.runs.progress import ProgressBar
from world.models import Scenario
from world.time import TICKS_PER_DAY

MODEL_ERRORS = (ReplayMissing, GatewayConfigError)


def add_run_options(parser) -> None:
    parser.add_argument("--scenario", default="1912", help="scenario slug (default 1912)")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--days", type=float, help="simulated days to run (480 ticks each)")
    length.add_argument("--ticks", type=int, help="ticks to run")
    parser.add_argument("--seed", type=int, help="default 1912 (a fork: the source's)")
    parser.add_argument("--schedule", choices=[Run.SEQUENTIAL, Run.SIMULTANEOUS], default=Run.SEQUENTIAL)
    parser.add_argument("--layout", choices=[Run.SEED_LAYOUT, Run.CACHED_LAYOUT],
                        help="context layout of action prompts: seed or cached (prefix-cache friendly); "
                             "default: cached for a real model, seed for the offline policy")
    parser.add_argument("--example-answer", choices=[c for c, _ in Run.EXAMPLE_ANSWERS], default="rotating",
                        help="the example answer each action prompt ends with: rotating (default), neutral (names "
                             "no one) or none")
    parser.add_argument("--malformed-rate", type=float, default=0.0,
                        help="offline model: share of malformed answers, 0-1")
    parser.add_argument("--run-ahead", type=int, metavar="N",
                        help=f"simultaneous schedule: ticks an agent may run ahead of the slowest agent, "
                             f"0-{MAX_RUN_AHEAD} (0: lock-step); the transcript is the same for every value. Default "
                             f"2 (a replay or fork: its source's; --run: the run's own, or this for the rest of it)")
    parser.add_argument("--run", type=int, help="continue this run instead of starting a new one")
    add_model_options(parser)
    add_fork_options(parser)


def target_from(options, default: int) -> int:
    if options.get("ticks") is not None:
        if options["ticks"] < 0:
            raise CommandError("--ticks must be 0 or more")
        return options["ticks"]
    if options.get("days") is not None:
        if options["days"] < 0:
            raise CommandError("--days must be 0 or more")
        return round(options["days"] * TICKS_PER_DAY)
    return default


def run_from_options(options) -> Run:
    """The run the options name: an existing one (--run, its target moved if --days/--ticks say so),
    or a new one."""
    if not 0.0 <= options["malformed_rate"] <= 1.0:
        raise CommandError("--malformed-rate must be between 0 and 1")
    ahead = options.get("run_ahead")
    if ahead is not None and not 0 <= ahead <= MAX_RUN_AHEAD:
        raise CommandError(f"--run-ahead must be a whole number of ticks from 0 (lock-step) to {MAX_RUN_AHEAD}; "
                           f"got {ahead}")
    if options.get("fork") is not None:
        if options.get("profile_for"):
            raise CommandError("--fork keeps its source's --profile-for routes (fork through the API or admin to "
                               "change them)")
        return fork_from_options(options, target_from)
    profile = profile_from_options(options)
    source = replay_source(options)
    model = {**budget_from_options(options), **({"profile": profile} if profile else {})}
    schedule = {} if ahead is None else {"run_ahead": ahead}  # the same transcript whatever the value
    if source:
        routes_from_options(options)  # refuses --profile-for: a replay keeps its source's routes
        fields = replay_fields(source)
        return create_run(target_ticks=target_from(options, source.tick), **{**fields, **schedule}, **model)
    if options.get("run"):
        try:
            run = Run.objects.get(pk=options["run"])
        except Run.DoesNotExist:
            raise CommandError(f"there is no run {options['run']}") from None
        if routes := routes_from_options(options, set(run.agents.values_list("persona__key", flat=True))):
            model["profile_routes"] = routes  # for the rest of the run, like a new --profile
        target = target_from(options, run.target_ticks)
        if target != run.target_ticks:
            Run.objects.filter(pk=run.pk).update(target_ticks=target)
            run.target_ticks = target
        if model or schedule:  # a new profile, budget or run-ahead for the rest of the run
            Run.objects.filter(pk=run.pk).update(**model, **schedule)
            run.refresh_from_db()
        return run
    try:
        scenario = Scenario.objects.get(slug=options["scenario"])
    except Scenario.DoesNotExist:
        known = ", ".join(Scenario.objects.values_list("slug", flat=True)) or "none"
        raise CommandError(f"there is no scenario {options['scenario']!r} (installed: {known})") from None
    if routes := routes_from_options(options, set(scenario.personas.values_list("key", flat=True))):
        model["profile_routes"] = routes
    return create_run(scenario, seed=1912 if options["seed"] is None else options["seed"], schedule=options["schedule"],
                      target_ticks=target_from(options, TICKS_PER_DAY), malformed_rate=options["malformed_rate"],
                      context_layout=options["layout"], example_answer=options["example_answer"], **schedule, **model)


class Command(BaseCommand):
    help = "Run a voyage in the foreground and print one JSON line of figures."

    def add_arguments(self, parser):
        add_run_options(parser)
        parser.add_argument("--memory-worker", action="store_true",
                            help="queue compaction and dream jobs for a running memory worker instead of doing them here")

    def handle(self, *args, **options):
        run = run_from_options(options)
        watch = Stopwatch()
        try:
            with in_the_foreground(run):
                meter = InFlightMeter(gateway_for(run))  # how much of the agents' time had a call out
                advance(run, run.target_ticks, gateway=meter,
                        on_tick=ProgressBar(run.tick, run.target_ticks, self.stderr._out),
                        memory_inline=not options["memory_worker"])
        except MODEL_ERRORS as exc:  # a clear message, not a traceback
            raise CommandError(f"run {run.pk} stopped: {exc}") from exc
        wall_s = watch.elapsed
        summary = run_summary(run, wall_s)
        summary.update(meter.figures(wall_s, summary["agents"]))
        summary["model_health"] = self.model_health(run)
        summary["usage_by_profile"] = usage_by_profile(run)
        if run.state == Run.PAUSED:  # the budget ran out: advance() paused it and said why
            summary["paused"] = run.pause_reason
            self.stderr.write(f"run {run.pk} paused: {run.pause_reason}")
        self.stdout.write(json.dumps(summary))

    def model_health(self, run: Run) -> dict:
        """Read from the recorded calls once the run is done (never in a tick); its warnings on stderr too."""
        line = health_line(health_of(run))
        for warning in line["warnings"]:
            self.stderr.write(f"run {run.pk} model health: {warning} (see /runs/{run.pk}/)")
        return line
