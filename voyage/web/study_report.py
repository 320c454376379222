"""One report per study: its design, every measure of the results table with the arms side by side
(each arm's mean and the 95 % bootstrap interval of that mean over its runs), each arm against the
baseline (difference, interval, permutation p, effect size: voyage/studies/stats.py), how the
answers to each survey item are spread in each arm (report_surveys.py), the standard instruments'
figures per arm beside people's (report_validity.py), and the networks (the
speech graph of each arm's first run on the day reported). It iterates over whatever columns the
study's results have, so a measure added to the registry (a survey's items) is in it with no more
work.

Shown as a page and downloaded as one self-contained HTML file (its style inline, no script, nothing
fetched, no link that needs the site). A face, like views.py: it draws with the pictures page's code."""
from __future__ import annotations

from dataclasses import dataclass

from voyage.models import Run
from voyage.studies import compare as cells
from voyage.studies.adjust import HOLM, METHODS, with_adjusted
from voyage.studies.between import arms_of, between, compared as compared_columns, is_scale, measure_of, pick_baseline
from voyage.studies.forest import forest_rows, forest_svg
from voyage.studies.grid import SEED
from voyage.studies.judge_measures import verdict_column, worst
from voyage.studies.models import Study
from voyage.studies.report_surveys import survey_spreads
from voyage.studies.report_validity import validity_section
from voyage.studies.results import study_rows
from voyage.studies.stats import MIN_RUNS, ArmSummary, Comparison, seed_for, summarise
from voyage.web.charts import RUNG_COLOURS
from voyage.web.speech_picture import speech_picture
from voyage.web.study_ranking import ranking_section
from world.time import TICKS_PER_DAY


ADJUSTMENT = HOLM  # the report's p-values are adjusted for every comparison in its table


@dataclass
class MeasureRow:
    column: str
    doc: str
    arms: list[ArmSummary]
    against: list[Comparison]  # each arm but the baseline, in order
    network: bool
    verdicts: list[str | None] | None = None  # a judge's score: each arm's verdict (the worst of its runs)


def design(study: Study) -> dict:
    members = list(study.members.select_related("run__profile").order_by("position"))
    profiles = sorted({m.run.profile.name if m.run.profile else "offline" for m in members})
    return {
        "scenario": study.scenario.name, "ticks": study.target_ticks, "days": round(study.target_ticks / TICKS_PER_DAY, 3),
        "axes": [(a, ", ".join(v)) for a, v in study.axes.items()], "base": sorted(study.base.items()),
        "runs": sum(1 for m in members if not m.is_base), "bases": sum(1 for m in members if m.is_base),
        "profiles": ", ".join(profiles), "interventions": study.interventions, "fork_tick": study.fork_tick,
        "state": study.state, "stop_reason": study.stop_reason, "created": study.created_at,
    }


def report(study: Study, day=None) -> dict:
    header, rows = study_rows(study)
    axes = [a for a in study.axes if a != SEED]
    arms = arms_of(rows, study.axes)
    days = sorted({int(r["day"]) for r in rows})
    chosen = int(day) if day is not None and str(day).isdigit() and int(day) in days else (days[-1] if days else None)
    context = {"study": study, "design": design(study), "arms": arms, "days": days, "day": chosen,
               "min_runs": MIN_RUNS, "measures": [], "graphs": [], "ranking": ranking_section(study)}
    if chosen is None:
        return context
    baseline = pick_baseline(arms, None)
    on_day = [r for r in rows if int(r["day"]) == chosen]
    measures = []
    for column in compared_columns(header):
        declared = measure_of(column)
        per_arm = [summarise([r.get(column) for r in on_day if cells.cell_of(r, axes) == arm],
                             seed_for(study.name, column, chosen, arm)) for arm in arms]
        carried = verdict_column(column)
        verdicts = [worst(r.get(carried) for r in on_day if cells.cell_of(r, axes) == arm) or "not judged"
                    for arm in arms] if carried else None
        measures.append(MeasureRow(column, declared.doc if declared else "", per_arm,
                                   between(study.name, rows, study.axes, column, chosen, baseline,
                                           scale=is_scale(study, column)),
                                   column.startswith(("speech_net_", "trust_net_")), verdicts))
    flat = with_adjusted([c for m in measures for c in m.against], ADJUSTMENT)
    for m in measures:
        m.against, flat = flat[:len(m.against)], flat[len(m.against):]
    compared = [c for m in measures for c in m.against]
    forest = forest_rows(compared)
    runs_by_arm = {arm: sorted({int(r["run_id"]) for r in rows if cells.cell_of(r, axes) == arm}) for arm in arms}
    context.update(adjustment=METHODS[ADJUSTMENT], adjusted_n=sum(1 for c in compared if c.p_value is not None),
                   forest=forest_svg(forest) if forest else "", forest_rows=forest)
    context.update(baseline=baseline, measures=measures, others=[a for a in arms if a != baseline],
                   graphs=arm_graphs(rows, axes, arms, chosen), surveys=survey_spreads(study, runs_by_arm),
                   validity=validity_section(study, runs_by_arm))
    return context


def arm_graphs(rows: list[dict], axes: list[str], arms: list[str], day: int) -> list[dict]:
    """The speech graph of each arm's first run (lowest seed) on the day: one picture per arm."""
    out = []
    for arm in arms:
        mine = sorted((r for r in rows if cells.cell_of(r, axes) == arm and int(r["day"]) == day),
                      key=lambda r: int(r[SEED]))
        if not mine:
            continue
        run = Run.objects.select_related("scenario").get(pk=mine[0]["run_id"])
        picture = speech_picture(run, day, RUNG_COLOURS)
        out.append({"arm": arm, "run": run.pk, "seed": mine[0][SEED], **picture})
    return out
