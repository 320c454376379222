"""`manage.py scenario draft`: its arguments, and the draft as the command shows it (the
projection before the first call, the report, and one JSON line last)."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError

from voyage.drafting.pipeline import AskRefused, check_ask, draft_world
from voyage.drafting.profile import NoSuchProfile, author_for
from voyage.drafting.projection import over_budget, project
from world.drafting.limits import (DEFAULT_PEOPLE, DEFAULT_REPAIR_ROUNDS, DEFAULT_ROOMS, MAX_PARAGRAPH, MAX_PEOPLE,
                                   MAX_REPAIR_ROUNDS, MAX_ROOMS, DraftAsk)

DEFAULT_BUDGET = 1.0  # dollars


def add_draft_arguments(parser) -> None:
    parser.add_argument("--from", dest="source", required=True,
                        help=f"a .txt file holding the paragraph, or the paragraph itself (at most {MAX_PARAGRAPH} "
                             "characters)")
    parser.add_argument("--people", type=int, default=DEFAULT_PEOPLE, help=f"at most this many people (<= {MAX_PEOPLE})")
    parser.add_argument("--rooms", type=int, default=DEFAULT_ROOMS, help=f"at most this many rooms (<= {MAX_ROOMS})")
    parser.add_argument("--profile", help="the model profile that drafts (default: the offline policy, scripted)")
    parser.add_argument("--repair-rounds", type=int, default=DEFAULT_REPAIR_ROUNDS,
                        help=f"repair rounds at most (<= {MAX_REPAIR_ROUNDS})")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET,
                        help="dollars the draft may cost at most, at the profile's prices (refused before any call "
                             "when the projection is over it)")
    parser.add_argument("-o", "--output", required=True, help="the draft's file (written even when it is not valid, "
                                                              "for reading and editing)")
    parser.add_argument("--install", action="store_true", help="install the draft if it passed everything "
                                                               "(exit 1 when nothing was installed)")


def paragraph_from(source: str) -> str:
    if source.endswith(".txt"):
        try:
            return Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {source}: {exc}") from None
    return source


def draft(command, options) -> None:
    ask = DraftAsk(paragraph_from(options["source"]), people=options["people"], rooms=options["rooms"],
                   repair_rounds=options["repair_rounds"])
    try:
        check_ask(ask)
        author = author_for(options.get("profile"))
    except (AskRefused, NoSuchProfile) as exc:
        raise CommandError(f"nothing was drafted: {exc}") from None
    projection = project(ask, author.max_tokens, *author.prices)
    if why := over_budget(projection, options["budget"]):
        raise CommandError(f"nothing was drafted: {why}")
    command.stdout.write(f"{projection} (budget ${options['budget']:.4f}; drafting with {author.name})")
    report = draft_world(ask, author.gateway(), drafted_by=author.name, budget=options["budget"],
                         install=options["install"])
    if report.text:
        Path(options["output"]).write_text(report.text, encoding="utf-8")
        command.stdout.write(f"draft written to {options['output']}")
    for line in report.lines():
        command.stdout.write(line)
    command.stdout.write(report.json_line())
    if options["install"] and not report.installed:
        raise SystemExit(1)
