"""A judging job: a run's day, scored by one judge (or two) against a rubric, with the judge's
self-checks and its verdict. The one way in (`manage.py judge`; docs/judging.md). Each agent's day
is a packet; rooms' scenes (a room over a window of ticks) may be judged beside them, on the
dimensions that read `scene`.

It reads only what the run committed (packets.py) and writes only LLMCall rows of purpose `judge`,
which the run's budget, replay and transcript never count: no event, memory row or agent state
changes. The calls of one job go out as one batch (concurrently on a real endpoint). Before any goes
out, the projected calls, tokens and cost are known (`projection`) and a budget refuses the job."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from types import SimpleNamespace

from django.db import transaction

from voyage.calls.factory import one_gateway
from voyage.calls.record import call_record
from voyage.gateway.base import JUDGE, ModelRequest
from voyage.gateway.offline_judge import JudgeHints
from voyage.gateway.routes import profile_for
from voyage.judging import defects, reliability
from voyage.judging.packets import (PACKET_TOKENS, SCENE_TICKS, bounded, busiest_scenes, day_packets, scene,
                                    subject, tokens_of)
from voyage.judging.prompt import (Judgement, pair_messages, pair_schema, read_pair, read_scores, score_messages,
                                   score_schema)
from voyage.judging.rubric import Rubric
from voyage.instruments.models import Judging
from voyage.models import LLMCall, ModelProfile, Run
from world.models import AgentState

OFFLINE = "offline (scripted)"
ANSWER_TOKENS = 400  # the projection's guess at one answer's length
MIN_PACKET_TOKENS = 800
MAX_SCENES = 20  # the busiest scenes one job may ask for (each a packet, asked and checked like a day)


class JudgeError(ValueError):
    """The job cannot be done as asked; the message says why."""


@dataclass
class Row:
    """One score of the tidy table: run, day, agent, dimension, score, reason, cited ids, repeat, judge."""

    agent: str  # the persona key, or a scene's key (scene:ROOM@FIRST-LAST)
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
    options: dict = field(default_factory=dict)  # what the job was cut down to, stated in its line

    def summary(self, cpu_s: float) -> dict:
        originals = [r for r in self.rows if r.copy == "original" and r.repeat == 0]
        return {"run_id": self.run_id, "day": self.day, "rubric": self.rubric,
                "judged": sum(1 for r in originals if r.judgement.score is not None),
                "missing": sum(1 for r in originals if r.judgement.score is None),
                "verdict": self.verdict, "scripted": self.scripted, **self.checks, "verdict_reasons": self.reasons,
                "calls": self.calls, "cpu_s": round(cpu_s, 2), "options": self.options}


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


def _score(rubric: Rubric, packet: dict, **kwargs) -> Ask:
    return Ask(0, "score", (packet,), messages=score_messages(rubric.for_packet(packet), packet), **kwargs)


def plan(run: Run, rubric: Rubric, packets: list[dict], judges: int, *, seed: int, repeat_share: float,
         planted_share: float, pairs: int, packet_tokens: int = PACKET_TOKENS, scenes: list[dict] = ()) -> list[Ask]:
    """The calls: every packet (agents' days, then scenes) scored, a seeded sample again
    (repeatability), by the second judge if any, altered copies of a seeded sample with each planted
    defect whose dimension the rubric asks of that packet, and pairs of half-size agents' packets in
    both orders. Scenes are sampled apart from days (one at least of each, when asked)."""
    rng = random.Random(f"{seed}:judge:{run.pk}")
    everything = [*packets, *scenes]
    asks = [_score(rubric, p) for p in everything]
    n_repeat = min(len(packets), max(2, round(repeat_share * len(packets)))) if repeat_share > 0 else 0
    again = sorted(rng.sample(packets, n_repeat), key=lambda p: p["id"])
    if scenes and repeat_share > 0:
        again += sorted(rng.sample(scenes, min(len(scenes), max(1, round(repeat_share * len(scenes))))),
                        key=lambda p: p["id"])
    asks += [_score(rubric, p, repeat=1) for p in again]
    if judges > 1:
        asks += [Ask(1, "score", (p,), messages=score_messages(rubric.for_packet(p), p)) for p in everything]
    others = {p.display_name: p.history for p in run.scenario.personas.all()}
    n_planted = min(len(packets), max(3, round(planted_share * len(packets)))) if planted_share > 0 else 0
    altered_from = sorted(rng.sample(packets, n_planted), key=lambda p: p["id"])
    if scenes and planted_share > 0:
        altered_from += sorted(rng.sample(scenes, min(len(scenes), max(1, round(planted_share * len(scenes))))),
                               key=lambda p: p["id"])
    for p in altered_from:
        asked = {d.id for d in rubric.for_packet(p).dimensions}
        for kind in defects.KINDS:
            if defects.TARGET[kind] not in asked or defects.present(kind, p):
                continue
            altered = defects.plant(kind, p, random.Random(f"{seed}:{p['id']}:{kind}"), others)
            if altered is not None:
                asks.append(_score(rubric, altered, copy=kind))
    halves = {p["id"]: bounded(p, p["items"], packet_tokens // 2) for p in packets}  # two to a prompt
    all_pairs = [(halves[a["id"]], halves[b["id"]]) for i, a in enumerate(packets) for b in packets[i + 1:]]
    for a, b in sorted(rng.sample(all_pairs, min(pairs, len(all_pairs))), key=lambda ab: (ab[0]["id"], ab[1]["id"])):
        asks.append(Ask(0, "pair", (a, b), messages=pair_messages(rubric.for_packet(a), a, b)))
        asks.append(Ask(0, "pair", (b, a), messages=pair_messages(rubric.for_packet(b), b, a)))
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
              budget_tokens: int | None = None, budget_cost: float | None = None, on_projection=None,
              packet_tokens: int = PACKET_TOKENS, dimensions: list[str] | None = None, scenes: int = 0,
              scene_ticks: int = SCENE_TICKS, scene_windows: list[tuple[str, int, int]] = ()) -> Result:
    """`packet_tokens` bounds each packet (a small model's prompt); `dimensions` cuts the rubric down
    (planting only the defects of the dimensions kept). One agent is enough, but then no pair can be
    asked and order bias goes unmeasured (the verdict says so). Scenes: the day's `scenes` busiest
    windows of `scene_ticks` ticks (busiest_scenes) and the (room, first, last) of `scene_windows`,
    judged on the dimensions that read `scene`."""
    if packet_tokens < MIN_PACKET_TOKENS:
        raise JudgeError(f"packet tokens: {packet_tokens} is too few; a packet needs {MIN_PACKET_TOKENS} at least "
                         "(the persona alone takes a few hundred)")
    for name, share in (("repeat share", repeat_share), ("planted share", planted_share)):
        if not 0 <= share <= 1:
            raise JudgeError(f"{name}: a share from 0 to 1, not {share:g}")
    if pairs < 0:
        raise JudgeError(f"pairs: 0 or more, not {pairs}")
    if not 0 <= scenes <= MAX_SCENES:
        raise JudgeError(f"scenes: a count from 0 to {MAX_SCENES}, not {scenes}")
    if scene_ticks < 1:
        raise JudgeError(f"scene ticks: 1 or more, not {scene_ticks}")
    profiles = judge_profiles(run, list(judges))
    if dimensions:
        rubric = rubric.only(list(dimensions))
    packets = day_packets(run, day, agents, budget=packet_tokens)
    if not packets:
        raise JudgeError(f"day {day}: no agent has rows that day, so there is nothing to judge")
    windows = list(dict.fromkeys([*scene_windows, *(busiest_scenes(run, day, scenes, scene_ticks) if scenes else ())]))
    if windows and not any("scene" in d.reads for d in rubric.dimensions):
        raise JudgeError(f"scenes: rubric {rubric.name!r} has no dimension that reads scene (add scene to a "
                         "dimension's reads)")
    scene_packets = [p for p in (scene(run, *w, budget=packet_tokens) for w in windows) if p["items"]]
    seed = run.seed if seed is None else seed
    asks = plan(run, rubric, packets, len(profiles), seed=seed, repeat_share=repeat_share,
                planted_share=planted_share, pairs=pairs, packet_tokens=packet_tokens, scenes=scene_packets)
    options = {"packet_tokens": packet_tokens, "dimensions": [d.id for d in rubric.dimensions],
               "agents": len(packets), "repeat_share": repeat_share, "planted_share": planted_share,
               "pairs": pairs,
               **({"scenes": [p["scene"]["key"] for p in scene_packets],
                   "scene_dimensions": [d.id for d in rubric.dimensions if "scene" in d.reads]} if windows else {})}
    projected = projection(asks, profiles)
    if on_projection:
        on_projection(projected)
    if budget_tokens is not None and projected["tokens"] > budget_tokens:
        raise JudgeError(f"the job would use about {projected['tokens']} tokens, over the budget of {budget_tokens}")
    if budget_cost is not None and projected["cost"] > budget_cost:
        raise JudgeError(f"the job would cost about {projected['cost']}, over the budget of {budget_cost}")
    answers = _ask(run, rubric, asks, profiles)
    result = Result(run.pk, day, rubric.name, scripted=all(_label(p) == OFFLINE for p in profiles),
                    calls=len(asks), projection=projected, options=options)
    pairs_seen: dict[tuple[str, str], list] = {}
    for ask, answer in zip(asks, answers):
        if ask.mode == "pair":
            key = tuple(sorted(p["id"] for p in ask.packets))
            pairs_seen.setdefault(key, []).append(read_pair(answer.text, *ask.packets)[0])
            continue
        packet = ask.packets[0]
        for j in read_scores(answer.text, rubric.for_packet(packet), packet, answer.error):
            result.rows.append(Row(subject(packet), _label(profiles[ask.judge]), ask.repeat, ask.copy, j))
    result.checks = self_checks(result.rows, rubric, [tuple(v) for v in pairs_seen.values() if len(v) == 2],
                                [_label(p) for p in profiles])
    result.verdict, result.reasons = reliability.verdict(result.checks, rubric.verdict)
    return result


def scene_count(text: str) -> int:
    """A form's `scenes` field (blank: 0) -> the count judge_run checks; not a whole number: refused."""
    text = (text or "").strip() or "0"
    try:
        return int(text)
    except ValueError:
        raise JudgeError(f"scenes: a count from 0 to {MAX_SCENES}, not {text!r}") from None


def scene_window(text: str) -> tuple[str, int, int]:
    """ROOM@A-B -> (room key, first tick, last tick)."""
    room, _, ticks = text.partition("@")
    first, _, last = ticks.partition("-")
    if not room or not first.isdigit() or not last.isdigit():
        raise JudgeError(f"scene {text!r}: give ROOM@A-B, a room key and its first and last tick (f_deck_passage@0-59)")
    return room, int(first), int(last)


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
    key = first["agent"]["key"] if ask.mode == "score" and "agent" in first else None  # a scene has no agent
    asked = rubric.for_packet(first)
    return ModelRequest(purpose=JUDGE, messages=ask.messages, tick=first["ticks"][1], agent_key=key,
                        agent_id=agent_ids.get((first["run"], key)), hints=JudgeHints(ask.mode, ask.packets,
                                                                                      asked.scales()),
                        schema=score_schema(asked, first) if ask.mode == "score" else pair_schema(*ask.packets))


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
