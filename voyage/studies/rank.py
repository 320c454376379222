"""A study's arms ranked as Generative Agents ranked their architectures (docs/judging.md): an
interview battery asked of every agent of every run at one tick; the judge compares the answers of
the same agent to the same question across arms (same seed), in both orders; Bradley–Terry ranks
the arms with a bootstrap interval over agents and seeds. Beside the ranking, the judge's own
figures: the share of pairs whose verdict flips with the order, repeatability on a seeded sample
asked twice, and how often it prefers an answer to its copy with a planted defect."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from voyage.judging import defects, reliability
from voyage.judging.answers import ask_battery, battery_for, load_battery
from voyage.judging.job import MIN_PACKET_TOKENS, OFFLINE, Ask, ask_judges, judge_profiles
from voyage.judging.packets import PACKET_TOKENS
from voyage.judging.prompt import pair_messages, read_pair
from voyage.judging.ranking import Ranked, Verdict, rank
from voyage.judging.rubric import Rubric
from voyage.models import ModelProfile
from voyage.studies.grid import SEED, cell_label
from voyage.studies.models import Ranking as RankingRow
from voyage.studies.models import Study

PLANTED_KINDS = ("anachronism", "early_name", "persona_swap")  # those one answer can carry
REPEAT_SHARE = 0.1
PLANTED_PER_KIND = 20


class RankError(ValueError):
    """The study cannot be ranked as asked; the message says why."""


@dataclass
class Ranking:
    arms: list[Ranked]
    checks: dict
    verdict: str
    reasons: list[str]
    calls: int
    scripted: bool
    tick: int
    battery: str
    answers: int = 0
    comparisons: list = field(default_factory=list)
    judge: str = OFFLINE
    options: dict = field(default_factory=dict)  # what the ranking was cut down to, stated in its line


def parse_battery_arg(text: str | None, study: Study) -> tuple[str, int | None]:
    """FILE@TICK, FILE, @TICK or None: (the battery's path, the tick or None for the arms' last)."""
    if not text:
        return str(battery_for(study.scenario.slug)), None
    path, sep, tick = text.rpartition("@") if "@" in text else (text, "", "")
    if sep and not tick.strip().isdigit():
        raise RankError(f"--battery {text!r}: write FILE@TICK with TICK a whole number")
    return (path or str(battery_for(study.scenario.slug))), (int(tick) if sep else None)


def rank_study(study: Study, rubric: Rubric, battery: str | None = None, *, judges=(), seed: int = 0,
               agents=None, packet_tokens: int = PACKET_TOKENS, dimensions=None) -> Ranking:
    """`packet_tokens` and `dimensions` cut the prompts down for a small, slow judge (stated in the
    ranking's `options`)."""
    if packet_tokens < MIN_PACKET_TOKENS:
        raise RankError(f"packet tokens: {packet_tokens} is too few; a packet needs {MIN_PACKET_TOKENS} at least")
    if dimensions:
        rubric = rubric.only(list(dimensions))
    path, tick = parse_battery_arg(battery, study)
    questions = load_battery(path)
    members = list(study.members.filter(is_base=False).select_related("run__scenario", "run__profile")
                   .order_by("position"))
    arms = list(dict.fromkeys(cell_label({k: v for k, v in m.cell.items() if k != SEED}) for m in members))
    if len(arms) < 2:
        raise RankError(f"study {study.name!r} has {len(arms)} arm(s): ranking needs two at least")
    last = min(m.run.tick for m in members)
    tick = last if tick is None else tick
    if not 0 < tick <= last:
        raise RankError(f"tick {tick}: every run of the study has committed {last} ticks at least; ask at a tick "
                        f"from 1 to {last}")
    profiles = judge_profiles(members[0].run, list(judges))
    by_key: dict[tuple, dict[str, dict]] = {}
    for m in members:
        arm = cell_label({k: v for k, v in m.cell.items() if k != SEED})
        for p in ask_battery(m.run, questions, tick, agents, packet_tokens):
            by_key.setdefault((m.seed, p["agent"]["key"], p["question"]["id"]), {})[arm] = p
    rng = random.Random(f"{seed}:rank:{study.pk}")
    asks, meta = [], []
    for (s, key, _), answers in sorted(by_key.items()):
        present = [a for a in arms if a in answers]
        for i, a in enumerate(present):
            for b in present[i + 1:]:
                for first, second in ((a, b), (b, a)):
                    asks.append(Ask(0, "pair", (answers[first], answers[second]),
                                    messages=pair_messages(rubric, answers[first], answers[second])))
                    meta.append(("pair", (a, b), (first, second), f"{s}:{key}"))
    pair_asks = list(range(len(asks)))
    for i in sorted(rng.sample(pair_asks[::2], max(2, round(REPEAT_SHARE * len(pair_asks) / 2)))
                    if len(pair_asks) >= 4 else []):
        asks.append(Ask(0, "pair", asks[i].packets, repeat=1, messages=asks[i].messages))
        meta.append(("repeat", meta[i][1], meta[i][2], meta[i][3]))
    others = {p.display_name: p.history for p in study.scenario.personas.all()}
    packets = sorted((p for answers in by_key.values() for p in answers.values()), key=lambda p: p["id"])
    for kind in PLANTED_KINDS:
        for p in rng.sample(packets, min(PLANTED_PER_KIND, len(packets))):
            if defects.present(kind, p):
                continue
            altered = defects.plant(kind, p, random.Random(f"{seed}:{p['id']}:{kind}"), others)
            if altered is None:
                continue
            pair = (p, altered) if rng.random() < 0.5 else (altered, p)
            asks.append(Ask(0, "pair", pair, copy=kind, messages=pair_messages(rubric, *pair)))
            meta.append(("planted", kind, p["id"], ""))
    answers = ask_judges(study.scenario, seed, rubric, asks, profiles)
    ranking = _tally(arms, asks, meta, answers, profiles, tick, path, len(packets), seed, rubric)
    ranking.options = {"packet_tokens": packet_tokens, "dimensions": [d.id for d in rubric.dimensions],
                       "questions": len(questions), "agents": len(agents) if agents else "all"}
    return ranking


def _tally(arms, asks, meta, answers, profiles, tick, path, n_answers, seed, rubric) -> Ranking:
    verdicts, orders, firsts, repeats = [], {}, {}, {}
    planted: dict[str, list[bool]] = {k: [] for k in PLANTED_KINDS}
    for i, (ask, m, answer) in enumerate(zip(asks, meta, answers)):
        winner_id, _ = read_pair(answer.text, *ask.packets)
        if m[0] == "planted":
            planted[m[1]].append(winner_id == m[2])
            continue
        first, second = m[2]
        winner = None if winner_id is None else (first if winner_id == ask.packets[0]["id"] else second)
        coded = None if winner is None else float(winner == m[1][0])  # 1: the pair's first arm won
        if m[0] == "repeat":
            repeats[ask.packets[0]["id"] + ask.packets[1]["id"]] = coded
            continue
        firsts[ask.packets[0]["id"] + ask.packets[1]["id"]] = coded
        key = (m[3], *sorted(m[1]), ask.packets[0]["question"]["id"])
        orders.setdefault(key, []).append(winner)
        if winner is not None:
            verdicts.append(Verdict(winner, second if winner == first else first, m[3]))
    flips = reliability.flip_share([tuple(v) for v in orders.values() if len(v) == 2])
    units = sorted(repeats)
    first_pass, second_pass = [firsts.get(u) for u in units], [repeats[u] for u in units]
    checks = {"order_flip_share": flips[0], "order_pairs": flips[1],
              "repeat_alpha": reliability.alpha(first_pass, second_pass) if units else None, "repeat_units": len(units),
              "repeat_agreement": reliability.agreement(first_pass, second_pass),
              "judges_alpha": None,
              "planted_detection": {k: reliability.detection(sum(v), len(v)) for k, v in planted.items()},
              "missing_share": round(1 - len(verdicts) / max(1, sum(len(v) for v in orders.values())), 4)}
    word, reasons = reliability.verdict(checks, rubric.verdict)
    labels = {p.name if p is not None and p.kind == ModelProfile.OPENAI else OFFLINE for p in profiles}
    return Ranking(rank(arms, verdicts, seed=seed), checks, word, reasons, len(asks), labels == {OFFLINE}, tick,
                   path, n_answers, verdicts, judge=", ".join(sorted(labels)))


def save(study: Study, found: Ranking, cpu_s: float) -> RankingRow:
    arms = [{"arm": a.arm, "score": a.score, "ci_low": a.ci_low, "ci_high": a.ci_high, "rank": a.rank,
             "comparisons": a.comparisons} for a in found.arms]
    checks = {**found.checks, "verdict_reasons": found.reasons, "answers": found.answers, "calls": found.calls,
              "cpu_s": round(cpu_s, 2)}
    return RankingRow.objects.create(study=study, tick=found.tick, battery=found.battery, judge=found.judge,
                                     scripted=found.scripted, verdict=found.verdict, arms=arms, checks=checks)
