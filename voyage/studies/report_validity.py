"""The validity section of a study's report: for each standard instrument the study asked (`--instrument
NAME@TICK`), each arm's figures over the agents of all its runs (its seeds pooled) beside people's, with
their source — per domain Cronbach's alpha and McDonald's omega (bootstrap intervals over the agents),
the retest ICC(3,1) where the study asked the instrument at two ticks (each agent of each run against
itself), the persona table (persona_rating.py: each agent's judge-rated persona against its measured
domain scores, r across the arm's agents, convergent per domain and the mean off-diagonal
discriminant, with intervals), and for every item with a published human distribution the distance of
the arm's answers to people's. The results table holds one value per run (the `validity_*` measures);
these are the figures behind them. Nothing is asked here: a run not asked yet is left out, and the
persona ratings are the ones the study kept when it asked (study_surveys.py)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from voyage.instruments.administer import scored, sheets
from voyage.instruments.models import Survey
from voyage.instruments.persona_rating import consistency, mtmm_rows, rated
from voyage.instruments.psychometrics import OMEGA_BOOTSTRAP, Figure, cronbach_alpha, icc_3_1, mcdonald_omega, with_interval
from voyage.instruments.standard_instruments import DOMAINS, instrument
from voyage.instruments.validity import distances, domain_matrix, people_by_domain, references_for, retest_matrix
from voyage.models import Run
from voyage.studies.stats import seed_for
from voyage.studies.study_surveys import MADE_BY
from world.models import AgentState


@dataclass
class ArmValidity:
    arm: str
    runs: int
    agents: int
    domains: list[dict] = field(default_factory=list)  # letter, name, alpha, omega, retest (Figure dicts)
    references: list[dict] = field(default_factory=list)  # validity.distances rows
    persona: dict | None = None  # persona_rating.consistency: the multitrait-multimethod table, pooled
    persona_rows: list = field(default_factory=list)  # persona_rating.mtmm_rows(persona), for the page


@dataclass
class InstrumentValidity:
    name: str
    title: str
    tick: int
    retest_tick: int | None
    people: dict  # what people's figures are, and their source
    sources: tuple
    arms: list[ArmValidity]


def _pooled(inst, administrations: list[tuple[int, str]]):
    """The sheets of the arm's runs, each agent named by run and persona (the same persona in two runs is
    two agents)."""
    return [replace(s, agent=f"{run_id}:{s.agent}") for run_id, administration in administrations
            for s in sheets(run_id, administration)]


NOT_RATED = ("no persona of these runs was rated by its judge (a study rates them when it asks the instrument; "
             "a study asked before that has no ratings)")


def _persona_table(scored_: list, seed: int) -> dict:
    """The arm's persona table: each agent (run:persona) with its judge's rating of its persona, kept when
    the study asked (persona_rating.rated: read only), against its measured domain scores."""
    measured = {s.agent: sc.domains for s, sc in scored_}
    wanted: dict[int, set] = {}
    for agent in measured:
        run_id, key = agent.split(":", 1)
        wanted.setdefault(int(run_id), set()).add(key)
    ratings = {}
    for run in Run.objects.filter(pk__in=list(wanted)).select_related("profile"):
        agents = list(AgentState.objects.filter(run=run, persona__key__in=wanted[run.pk]).select_related("persona"))
        ratings.update({f"{run.pk}:{k}": r for k, r in rated(run, agents).items()})
    ordered = {k: ratings[k] for k in measured if k in ratings}  # the agents in the pooled sheets' order
    return consistency(ordered, measured, seed, why_none=NOT_RATED)


def validity_section(study, runs_by_arm: dict[str, list[int]]) -> list[InstrumentValidity]:
    specs = [s for s in study.surveys or [] if "instrument" in s]
    if not specs:
        return []
    run_ids = [r for runs in runs_by_arm.values() for r in runs]
    asked = {}
    for run_id, name, tick, administration in (Survey.objects.filter(
            run_id__in=run_ids, made_by=MADE_BY.format(name=study.name)).exclude(instrument="")
            .order_by("id").values_list("run_id", "instrument", "tick", "administration")):
        asked.setdefault((run_id, name, tick), administration)
    ticks: dict[str, list[int]] = {}
    for spec in specs:
        ticks.setdefault(spec["instrument"], []).append(spec["tick"])
    out = []
    for name, asked_at in ticks.items():
        inst = instrument(name)
        asked_at = sorted(set(asked_at))
        for n, tick in enumerate(asked_at):
            # the retest: the instrument's previous asking in the study, against this one
            before = asked_at[n - 1] if n and inst.scaled else None
            arms = []
            for arm, runs in runs_by_arm.items():
                mine = [(r, asked[(r, name, tick)]) for r in runs if (r, name, tick) in asked]
                seed = seed_for(study.name, "validity", name, tick, arm)
                pooled = _pooled(inst, mine)
                row = ArmValidity(arm, len(mine), len(pooled))
                if inst.scaled:
                    earlier = _pooled(inst, [(r, asked[(r, name, before)]) for r, _ in mine
                                             if (r, name, before) in asked]) if before is not None else None
                    now = scored(inst, pooled)
                    then = scored(inst, earlier) if earlier is not None else None
                    for i, d in enumerate(DOMAINS):
                        m = domain_matrix(inst, pooled, d)
                        retest = (with_interval(icc_3_1, retest_matrix(then, now, d), seed + 20 + i)
                                  if then is not None else Figure(None, reason="asked at one tick in this study"))
                        row.domains.append({"letter": d, "name": inst.domains[d],
                                            "alpha": with_interval(cronbach_alpha, m, seed + i).as_dict(),
                                            "omega": with_interval(mcdonald_omega, m, seed + 10 + i,
                                                                   OMEGA_BOOTSTRAP).as_dict(),
                                            "retest": retest.as_dict()})
                        people = people_by_domain(inst, d)
                        row.domains[-1]["pairs"] = [((k, row.domains[-1][k]), people[k])
                                                    for k in ("alpha", "omega", "retest")]
                    row.persona = _persona_table(now, seed + 50)
                    row.persona_rows = mtmm_rows(row.persona)
                refs = references_for(inst, None, [])
                if refs:
                    answers: dict[str, list] = {}
                    for s in pooled:
                        for item, value in s.answers.items():
                            answers.setdefault(item, []).append(value)
                    row.references = distances(refs, answers, seed)
                    for ref, r in zip(refs, row.references):
                        agents = r.get("agents_shares") or [None] * len(ref.options)
                        r["shares"] = list(zip(ref.options, agents, ref.shares))
                arms.append(row)
            out.append(InstrumentValidity(name, inst.title, tick, before, people_of(inst), inst.sources, arms))
    return out


def people_of(inst) -> dict:
    """What people's reliability figures for the instrument are, and their source."""
    human = inst.human or {}
    return {"alpha_mean": human.get("alpha_mean_domains"), "source": human.get("source", ""),
            "what": human.get("what", "")}
