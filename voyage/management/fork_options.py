"""`run_voyage --fork RUN --at-tick N [--seed S] [--profile NAME | --base-url URL ...] [--set NAME=VALUE]
[--run-ahead N] [--ticks N | --days D]`: a fork replays RUN's first N ticks, then goes on live with these settings."""
from __future__ import annotations

import json

from django.core.management.base import CommandError

from voyage.management.model_options import budget_from_options, profile_from_options
from voyage.models import Run
from voyage.runs.config import PARAMETERS
from voyage.runs.fork import ForkError, fork


def add_fork_options(parser) -> None:
    group = parser.add_argument_group("fork (a new run replaying RUN's first N ticks, then live)")
    group.add_argument("--fork", type=int, metavar="RUN", help="the run to fork")
    group.add_argument("--at-tick", type=int, metavar="N", help="with --fork: the ticks replayed from RUN")
    group.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                       help=f"with --fork: a parameter for the live part ({', '.join(PARAMETERS)}); JSON values")


def parameters(pairs: list[str]) -> dict:
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise CommandError(f"--set {pair!r}: write NAME=VALUE")
        try:
            out[name.strip()] = json.loads(value)
        except ValueError:
            out[name.strip()] = value
    return out


def fork_from_options(options, target_from) -> Run:
    if options.get("at_tick") is None:
        raise CommandError("--fork needs --at-tick N")
    if options.get("run") or options.get("replay"):
        raise CommandError("--fork makes a new run: it does not go with --run or --replay")
    try:
        source = Run.objects.get(pk=options["fork"])
    except Run.DoesNotExist:
        raise CommandError(f"there is no run {options['fork']} to fork") from None
    profile = profile_from_options(options)
    params = {**parameters(options.get("set") or []), **budget_from_options(options)}
    if options.get("malformed_rate"):
        params["malformed_rate"] = options["malformed_rate"]
    if options.get("run_ahead") is not None:  # not given: the source's
        params["run_ahead"] = options["run_ahead"]
    try:
        return fork(source, options["at_tick"], seed=options.get("seed"), profile=profile,
                    target_ticks=target_from(options, source.target_ticks), params=params,
                    memory_inline=not options.get("memory_worker"))
    except ForkError as exc:
        raise CommandError(str(exc)) from exc
