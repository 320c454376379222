"""A judging job: a run's day, scored by one judge (or two) against a rubric, with the judge's
self-checks and its verdict. The one way in (`manage.py judge`; docs/judging.md).

It reads only what the run committed (packets.py) and writes only LLMCall rows of purpose `judge`,
which the run's budget, replay and transcript never count: no event, memory row or agent state
changes. The calls of one job go out as one batch (concurrently on a real endpoint). Before any goes
out, the projected calls, tokens and cost are known (`projection`) and a budget refuses the job."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from types import SimpleNamespace

from django.db import transaction

from voyage.calls.factory import one_gateway
from voyage.calls.record import call_record
from voyage.gateway.base import JUDGE, ModelRequest
from voyage.gateway.offline_judge import JudgeHints
from voyage.gateway.routes import profile_for
from voyage.judging import defects, reliability
from voyage.judging.packets import PACKET_TOKENS, bounded, day_packets, tokens_of
from voyage.judging.prompt import Judgement, pair_messages, read_pair, read_scores, score_messages
from voyage.judging.rubric import Rubric
from voyage.instruments.models import Judging
from voyage.models import LLMCall, ModelProfile, Run
from world.models import AgentState

OFFLINE = "offline (scripted)"
ANSWER_TOKENS = 400  # the projection's guess at one answer's length


class JudgeError(ValueError):
    """The job cannot be done as asked; the message says why."""


@dataclass
class Row:
    """One score of the tidy table: run, day, agent, dimension, score, reason, cited ids, repeat, judge."""

    agent: str
    judge: str
    repeat: int
    copy: str  # "original", or the planted defect's kind
    judgement: Judgement


@dataclass
class Result:
    run_id: int
    day: int
    rubric: str
    rows: list[Row] = field(default_factory=list)
    checks: dict = field(default_factory=dict)
    verdict: str = ""
    reasons: list[str] = field(default_factory=list)
    calls: int = 0
    scripted: bool = False
    projection: dict = field(default_factory=dict)

    def summary(self, cpu_s: float) -> dict:
        originals = [r for r in self.rows if r.copy == "original" and r.repeat == 0]
        return {"run_id": self.run_id, "day": self.day, "rubric": self.rubric,
                "judged": sum(1 for r in originals if r.judgement.score is not None),
                "missing": sum(1 for r in originals if r.judgement.score is None),
                "verdict": self.verdict, "scripted": self.scripted, **self.checks, "verdict_reasons": self.reasons,
                "calls": self.calls, "cpu_s": round(cpu_s, 2)}


def save(result: Result, cpu_s: float, asked_by=None, made_by: str = ""):
    """The job kept as a Judging row (the pages and the API show the latest), with the first judge's
    scores of the real packets. `made_by`: the study that asked (kept in the summary), if one did."""
    first = result.rows[0].judge if result.rows else OFFLINE
    scores = [{"agent": r.agent, "dimension": r.judgement.dimension, "score": r.judgement.score,
               "reason": r.judgement.reason, "cites": list(r.judgement.cites), "missing": r.judgement.missing}
              for r in result.rows if r.copy == "original" and r.repeat == 0 and r.judge == first]
    judges = ", ".join(dict.fromkeys(r.judge for r in result.rows)) or OFFLINE
    return Judging.objects.create(run_id=result.run_id, day=result.day, rubric=result.rubric, judge=judges,
                                  scripted=result.scripted, verdict=result.verdict,
                                  summary={**result.summary(cpu_s), **({"made_by": made_by} if made_by else {})},
                                  scores=scores, asked_by=asked_by)


def judge_profiles(run: Run, names: list[str]) -> list[ModelProfile | None]:
    """The judges: those named, else the run's `judge` route, else its main profile (None: offline)."""
    if not names:
        routed = profile_for(run.profile_routes or {}, JUDGE, None)
        names = [routed] if routed else []
        if not names:
            return [run.profile]
    found = {p.name: p for p in ModelProfile.objects.filter(name__in=names)}
    missing = [n for n in names if n not in found]
    if missing:
        raise JudgeError(f"judge: there is no model profile {', '.join(map(repr, missing))}")
    if len(set(names)) < len(names):
        raise JudgeError("judge: name two different profiles to measure agreement between judges")
    return [found[n] for n in names]


def _label(profile: ModelProfile | None) -> str:
    return profile.name if profile is not None and profile.kind == ModelProfile.OPENAI else OFFLINE


@dataclass(frozen=True)
class Ask:
    """One call to make: which judge, and for which packet(s)."""

    judge: int
    mode: str  # score, pair
    packets: tuple[dict, ...]
    repeat: int = 0
    copy: str = "original"
    messages: list = field(default_factory=list, compare=False)


def plan(run: Run, rubric: Rubric, packets: list[dict], judges: int, *, seed: int, repeat_share: float,
         planted_share: float, pairs: int) -> list[Ask]:
    rng = random.Random(f"{seed}:judge:{run.pk}")
    asks = [Ask(0, "score", (p,), messages=score_messages(rubric, p)) for p in packets]
    n_repeat = min(len(packets), max(2, round(repeat_share * len(packets))))
    asks += [Ask(0, "score", (p,), repeat=1, messages=score_messages(rubric, p))
             for p in sorted(rng.sample(packets, n_repeat), key=lambda p: p["id"])]
    if judges > 1:
        asks += [Ask(1, "score", (p,), messages=score_messages(rubric, p)) for p in packets]
    others = {p.display_name: p.history for p in run.scenario.personas.all()}
    n_planted = min(len(packets), max(3, round(planted_share * len(packets))))
    for p in sorted(rng.sample(packets, n_planted), key=lambda p: p["id"]):
        for kind in defects.KINDS:
            if defects.present(kind, p):
                continue
            altered = defects.plant(kind, p, random.Random(f"{seed}:{p['id']}:{kind}"), others)
            if altered is not None:
                asks.append(Ask(0, "score", (altered,), copy=kind, messages=score_messages(rubric, altered)))
    halves = {p["id"]: bounded(p, p["items"], PACKET_TOKENS // 2) for p in packets}  # two to a prompt
    all_pairs = [(halves[a["id"]], halves[b["id"]]) for i, a in enumerate(packets) for b in packets[i + 1:]]
    for a, b in sorted(rng.sample(all_pairs, min(pairs, len(all_pairs))), key=lambda ab: (ab[0]["id"], ab[1]["id"])):
        asks.append(Ask(0, "pair", (a, b), messages=pair_messages(rubric, a, b)))
        asks.append(Ask(0, "pair", (b, a), messages=pair_messages(rubric, b, a)))
    return asks


def projection(asks: list[Ask], profiles: list[ModelProfile | None]) -> dict:
    prompt = [tokens_of("".join(m["content"] for m in a.messages)) for a in asks]
    cost = 0.0
    for a, tokens in zip(asks, prompt):
        p = profiles[a.judge]
        if p is not None:
            cost += (tokens * float(p.price_in_per_m) + ANSWER_TOKENS * float(p.price_out_per_m)) / 1e6
    return {"calls": len(asks), "tokens": sum(prompt) + ANSWER_TOKENS * len(asks), "cost": round(cost, 6),
            "largest_prompt_tokens": max(prompt, default=0)}


def judge_run(run: Run, rubric: Rubric, day: int, *, agents: list[str] | None = None, judges: list[str] = (),
              seed: int | None = None, repeat_share: float = 0.2, planted_share: float = 0.3, pairs: int = 12,
              budget_tokens: int | None = None, budget_cost: float | None = None, on_projection=None) -> Result:
    profiles = judge_profiles(run, list(judges))
    packets = day_packets(run, day, agents)
    if len(packets) < 2:
        raise JudgeError(f"day {day}: {len(packets)} agent(s) with rows that day; judging needs two at least "
                         "(the self-checks compare packets)")
    seed = run.seed if seed is None else seed
    asks = plan(run, rubric, packets, len(profiles), seed=seed, repeat_share=repeat_share,
                planted_share=planted_share, pairs=pairs)
    projected = projection(asks, profiles)
    if on_projection:
        on_projection(projected)
    if budget_tokens is not None and projected["tokens"] > budget_tokens:
        raise JudgeError(f"the job would use about {projected['tokens']} tokens, over the budget of {budget_tokens}")
    if budget_cost is not None and projected["cost"] > budget_cost:
        raise JudgeError(f"the job would cost about {projected['cost']}, over the budget of {budget_cost}")
    answers = _ask(run, rubric, asks, profiles)
    result = Result(run.pk, day, rubric.name, scripted=all(_label(p) == OFFLINE for p in profiles),
                    calls=len(asks), projection=projected)
    pairs_seen: dict[tuple[str, str], list] = {}
    for ask, answer in zip(asks, answers):
        if ask.mode == "pair":
            key = tuple(sorted(p["id"] for p in ask.packets))
            pairs_seen.setdefault(key, []).append(read_pair(answer.text, *ask.packets)[0])
            continue
        packet = ask.packets[0]
        for j in read_scores(answer.text, rubric, packet, answer.error):
            result.rows.append(Row(packet["agent"]["key"], _label(profiles[ask.judge]), ask.repeat, ask.copy, j))
    result.checks = self_checks(result.rows, rubric, [tuple(v) for v in pairs_seen.values() if len(v) == 2],
                                [_label(p) for p in profiles])
    result.verdict, result.reasons = reliability.verdict(result.checks, rubric.verdict)
    return result


def _ask(run: Run, rubric: Rubric, asks: list[Ask], profiles: list) -> list:
    return ask_judges(run.scenario, run.seed, rubric, asks, profiles)


def ask_judges(scenario, seed: int, rubric: Rubric, asks: list[Ask], profiles: list) -> list:
    """Every call, one batch per judge, each recorded (purpose judge) on the run of its first packet,
    with its agent and tick. The answers, in the order of `asks`."""
    answers = [None] * len(asks)
    runs = {a.packets[0]["run"] for a in asks}
    agent_ids = {(r, k): i for r, k, i in AgentState.objects.filter(run_id__in=runs)
                 .values_list("run_id", "persona__key", "id")}
    for j, profile in enumerate(profiles):
        mine = [i for i, a in enumerate(asks) if a.judge == j]
        requests = {i: _request(asks[i], rubric, agent_ids) for i in mine}
        gateway = one_gateway(SimpleNamespace(seed=seed, malformed_rate=0.0, scenario=scenario), profile)
        try:
            for i, answer in zip(mine, gateway.complete_many([requests[i] for i in mine])):
                answer.profile = answer.profile or (profile.name if profile is not None else "")
                answers[i] = answer
        finally:
            gateway.close()
        with transaction.atomic():
            LLMCall.objects.bulk_create([
                call_record(asks[i].packets[0]["run"], requests[i], answers[i],
                            LLMCall.OK if not answers[i].failed else LLMCall.ERROR,
                            detail=f"judge {asks[i].mode} {asks[i].copy} repeat {asks[i].repeat}")
                for i in mine])
    return answers


def _request(ask: Ask, rubric: Rubric, agent_ids: dict) -> ModelRequest:
    first = ask.packets[0]
    key = first["agent"]["key"] if ask.mode == "score" else None
    return ModelRequest(purpose=JUDGE, messages=ask.messages, tick=first["ticks"][1], agent_key=key,
                        agent_id=agent_ids.get((first["run"], key)), hints=JudgeHints(ask.mode, ask.packets,
                                                                                      rubric.scales()))


def self_checks(rows: list[Row], rubric: Rubric, pair_verdicts: list[tuple], judges: list[str]) -> dict:
    def scores(judge: str, repeat: int, copy: str = "original") -> dict:
        return {(r.agent, r.judgement.dimension): r.judgement.score for r in rows
                if r.judge == judge and r.repeat == repeat and r.copy == copy}

    first = scores(judges[0], 0)
    again = scores(judges[0], 1)
    units = sorted(again)
    checks = {"repeat_alpha": reliability.alpha([first.get(u) for u in units], [again[u] for u in units])}
    checks["repeat_units"] = len(units)
    checks["repeat_agreement"] = reliability.agreement([first.get(u) for u in units], [again[u] for u in units])
    if len(judges) > 1:
        other = scores(judges[1], 0)
        units = sorted(first)
        checks["judges_alpha"] = reliability.alpha([first[u] for u in units], [other.get(u) for u in units])
    else:
        checks["judges_alpha"] = None
    checks["order_flip_share"], checks["order_pairs"] = reliability.flip_share(pair_verdicts)
    planted = {}
    for kind in defects.KINDS:
        target = defects.TARGET[kind]
        altered = {a: s for (a, d), s in scores(judges[0], 0, kind).items() if d == target}
        found = sum(1 for a, s in altered.items()
                    if s is not None and first.get((a, target)) is not None and s < first[(a, target)])
        planted[kind] = reliability.detection(found, len(altered))
    checks["planted_detection"] = planted
    originals = [r for r in rows if r.copy == "original"]
    checks["missing_share"] = round(sum(1 for r in originals if r.judgement.score is None) / len(originals), 4) \
        if originals else None
    return checks
