"""`study run N`: a whole study in the foreground, for a machine with no worker: its runs one after
another in grid order, one progress bar over all their ticks, memory jobs run inline as the batch
runner runs them, the budget checked before each run."""
from __future__ import annotations

from django.utils import timezone

from voyage import run_transitions as transitions
from voyage.engine.runner import advance
from voyage.models import Run
from voyage.runs.foreground import in_the_foreground
from voyage.runs.progress import ProgressBar
from voyage.studies import forks
from voyage.studies.models import Study, StudyRun
from voyage.studies.scheduler import SETTLED, budget_reached, stop_for_budget


def _todo(study: Study) -> list[StudyRun]:
    """Runs still to go that no worker holds, in grid order (an arm replayed to its fork tick too)."""
    members = StudyRun.objects.filter(study=study).select_related("run").order_by("position")
    return [m for m in members if (m.run.state not in SETTLED or forks.replayed(m.run)) and not m.run.claimed_by]


def run_study(study: Study, stream=None) -> dict:
    todo = _todo(study)
    total = sum(m.run.target_ticks - m.run.tick for m in todo)
    done = 0
    position = {"run": None}
    bar = ProgressBar(0, total, stream, describe=lambda _: f"run {position['run']}")
    ran = []
    bases = set(StudyRun.objects.filter(study=study, is_base=True).values_list("run_id", flat=True))
    for i, member in enumerate(todo):
        if why := budget_reached(study):
            stop_for_budget(study, why, [m for m in todo[i:] if m.started_at is None])
            break
        run = member.run
        position["run"] = run.pk
        if member.started_at is None:
            StudyRun.objects.filter(pk=member.pk).update(started_at=timezone.now())
        first, offset = run.tick, done
        try:
            with in_the_foreground(run):
                if forks.is_arm(run, bases) and not forks.forked(run):
                    if why := _fork(run, study, lambda t: bar(offset + t - first)):
                        transitions.pause_itself(run, why)
                        continue
                advance(run, run.target_ticks, on_tick=lambda t: bar(offset + t - first), memory_inline=True)
        except BaseException as exc:  # failed or interrupted: in_the_foreground has said so
            if isinstance(exc, KeyboardInterrupt):
                raise
            ran.append(run.pk)
            continue
        done += run.target_ticks - first
        ran.append(run.pk)
    study.refresh_from_db()
    if study.state == Study.RUNNING and not _todo(study):
        Study.objects.filter(pk=study.pk).update(state=Study.FINISHED)
        study.state = Study.FINISHED
    return {"study": study.pk, "runs": ran, "state": study.state, "stop_reason": study.stop_reason}


def _fork(arm: Run, study: Study, on_tick) -> str:
    """Replay the arm's base to the fork tick and put the arm live (voyage.studies.forks), or say why
    its base cannot be forked yet."""
    base = Run.objects.get(pk=arm.forked_from_id)
    if arm.replay_of_id is None:
        if why := forks.not_ready(base, arm.fork_tick):
            return why
        forks.begin_replay(arm, base)
    advance(arm, arm.fork_tick, on_tick=on_tick, memory_inline=True)
    transitions.finish(arm)  # its replay done, where a worker's chunk leaves it for forks.go_live
    forks.go_live(arm, study.target_ticks)
    transitions.start_in_foreground(arm)  # and on, live
    return ""
