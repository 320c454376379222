"""The validity section of a study's report: for each standard instrument the study asked (`--instrument
NAME@TICK`), each arm's figures over the agents of all its runs (its seeds pooled) beside people's, with
their source — per domain Cronbach's alpha and McDonald's omega (bootstrap intervals over the agents),
the retest ICC(3,1) where the study asked the instrument at two ticks (each agent of each run against
itself), and for every item with a published human distribution the distance of the arm's answers to
people's. The results table holds one value per run (the `validity_*` measures); these are the figures
behind them. Nothing is asked here: a run not asked yet is left out."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from voyage.instruments.administer import scored, sheets
from voyage.instruments.models import Survey
from voyage.instruments.psychometrics import OMEGA_BOOTSTRAP, Figure, cronbach_alpha, icc_3_1, mcdonald_omega, with_interval
from voyage.instruments.standard_instruments import DOMAINS, instrument
from voyage.instruments.validity import distances, domain_matrix, references_for
from voyage.studies.stats import seed_for
from voyage.studies.study_surveys import MADE_BY


@dataclass
class ArmValidity:
    arm: str
    runs: int
    agents: int
    domains: list[dict] = field(default_factory=list)  # letter, name, alpha, omega, retest (Figure dicts)
    references: list[dict] = field(default_factory=list)  # validity.distances rows


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


def _retest(inst, first, second, domain: str) -> np.ndarray:
    a = {s.agent: sc.domains.get(domain) for s, sc in scored(inst, first)}
    b = {s.agent: sc.domains.get(domain) for s, sc in scored(inst, second)}
    both = [(a[k], b[k]) for k in a if k in b and a[k] is not None and b[k] is not None]
    return np.array(both, dtype=float).reshape(len(both), 2)


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
                    for i, d in enumerate(DOMAINS):
                        m = domain_matrix(inst, pooled, d)
                        retest = (with_interval(icc_3_1, _retest(inst, earlier, pooled, d), seed + 20 + i)
                                  if earlier is not None else Figure(None, reason="asked at one tick in this study"))
                        row.domains.append({"letter": d, "name": inst.domains[d],
                                            "alpha": with_interval(cronbach_alpha, m, seed + i).as_dict(),
                                            "omega": with_interval(mcdonald_omega, m, seed + 10 + i,
                                                                   OMEGA_BOOTSTRAP).as_dict(),
                                            "retest": retest.as_dict()})
                        people = people_by_domain(inst, d)
                        row.domains[-1]["pairs"] = [((k, row.domains[-1][k]), people[k])
                                                    for k in ("alpha", "omega", "retest")]
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


def people_by_domain(inst, domain: str) -> dict:
    """People's alpha, omega and retest figure for one domain where published (None where not)."""
    human = inst.human or {}
    return {k: (human.get(k) or {}).get(domain) for k in ("alpha", "omega", "retest")}
