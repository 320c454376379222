"""A world from a paragraph, start to end: refuse a bad ask before any call, draft the stages,
check and repair for bounded rounds, prove the day offline, and install only a world that passed
everything. What happened is one DraftReport, whatever the outcome."""
from __future__ import annotations

import time
from collections.abc import Callable

from django.db import transaction

from voyage.drafting.author import DraftFailed, Spend, ask_stage, stage_request
from voyage.drafting.dry_run import dry_run
from voyage.drafting.report import DraftReport, RepairRound
from voyage.gateway.base import Gateway
from world.drafting.check import draft_problems
from world.drafting.limits import DraftAsk, ask_problems
from world.drafting.selfcheck import checker_trust
from world.drafting.stages import STAGES, assemble, owner_of
from world.scenarios.file_format import ScenarioFileError, read_scenario
from world.scenarios.files import import_yaml


class AskRefused(ValueError):
    """The ask is refused before any call; the message says every reason."""


def check_ask(ask: DraftAsk) -> None:
    if problems := ask_problems(ask):
        raise AskRefused("; ".join(problems))


def _quiet(step: str) -> None:
    pass


def draft_world(ask: DraftAsk, gateway: Gateway, *, drafted_by: str, budget: float,
                install: bool = False, step: Callable[[str], None] = _quiet) -> DraftReport:
    """Draft, check, repair, dry-run and (if asked and everything passed) install. The ask must have
    passed check_ask; the projection and budget were said before this is called. `step` hears what
    is being done next (the worker shows it on the draft's page)."""
    report = DraftReport(ask=ask, drafted_by=drafted_by, checker=checker_trust(ask))
    spend = Spend()
    try:
        answers = {}
        for stage in STAGES:
            step(f"drafting: {stage}")
            answers[stage] = ask_stage(gateway, stage_request(stage, ask, answers), _within(spend, budget))
        step("checking")
        report.text, problems = draft_problems(assemble(answers), ask)
        report.first_problems = list(problems)
        for n in range(1, ask.repair_rounds + 1):
            if not problems:
                break
            step(f"repair round {n} of at most {ask.repair_rounds}")
            problems = _repair_round(report, n, ask, gateway, answers, problems, spend, budget)
        report.problems = problems
    except DraftFailed as exc:
        report.failure = str(exc)
    finally:
        gateway.close()
        report.spend = spend
    if report.valid:
        step("the offline day")
        _prove(report, assemble(answers))
    if install:
        step("installing")
        install_draft(report)
    return report


def recheck(text: str, ask: DraftAsk, *, install: bool = False, step: Callable[[str], None] = _quiet) -> DraftReport:
    """A draft as the storyteller edited it: checked, proved by its day and installed (if asked)
    exactly as a drafted one; no model is called."""
    report = DraftReport(ask=ask, drafted_by="edited", checker=checker_trust(ask))
    step("checking")
    data, problems = read_scenario(text)
    if data is not None:
        _, problems = draft_problems(data, ask)
    report.text, report.problems = text, problems
    report.first_problems = list(report.problems)
    if report.valid:
        step("the offline day")
        _prove(report, data)
    if install:
        step("installing")
        install_draft(report)
    return report


def _prove(report: DraftReport, data: dict) -> None:
    started = time.process_time()
    report.day, report.audits = dry_run(data, report.ask.paragraph)
    report.dry_run_cpu_s = round(time.process_time() - started, 2)


def _within(spend: Spend, budget: float) -> Spend:
    if spend.cost > budget:
        raise DraftFailed(f"the budget of ${budget:.4f} is spent (${spend.cost:.4f} after {spend.calls} calls)")
    return spend


def _repair_round(report, n, ask, gateway, answers, problems, spend, budget):
    by_stage: dict[str, list] = {}
    for p in problems:
        by_stage.setdefault(owner_of(p.path), []).append(p)
    for stage in STAGES:
        if stage in by_stage:
            request = stage_request(stage, ask, answers, repair=by_stage[stage])
            answers[stage] = ask_stage(gateway, request, _within(spend, budget))
    report.text, after = draft_problems(assemble(answers), ask)
    before, now = {_said(p) for p in problems}, {_said(p) for p in after}
    report.rounds.append(RepairRound(n, tuple(s for s in STAGES if s in by_stage),
                                     fixed=tuple(sorted(before - now)), new=tuple(sorted(now - before))))
    return after


def _said(problem) -> str:
    return f"{problem.path}: {problem.message} (rule: {problem.rule})"


def install_draft(report: DraftReport) -> None:
    """Install a draft that passed everything, in one transaction (within the caller's, if any)."""
    report.install_asked = True
    if not report.passed:
        return
    try:
        with transaction.atomic():
            report.slug = import_yaml(report.text).slug
            report.installed = True
    except ScenarioFileError as exc:
        report.install_refused = str(exc)
