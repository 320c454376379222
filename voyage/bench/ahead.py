"""Benchmark: how much faster than lock-step an out-of-order schedule could possibly be (issue 22).

Before building a scheduler that lets agents run ahead, measure its ceiling on the worlds we have.
A run of the scenario (simultaneous schedule, offline model, memory jobs inline) is traced tick by
tick: who stood where, who made a call, who walked where, which other calls (reflection, importance,
trust, diary, bulletin) each agent made. Each call is then given a latency drawn from a lognormal
(median, sigma; seeded by the call's agent, tick and purpose), and two clocks are played forward:

- lock-step: each tick takes its slowest action call, then one slowest call per later round;
- out-of-order, with a perfect scheduler and zero engine time: an agent starts its next call as soon
  as everyone whose turn could reach it (world.rules.dependency.within_reach, with a pending call
  counted as a possible move or shout one exit any way) has resolved the tick, resolves after those
  before it in the tick's order that could reach it and after those it reaches have built their
  prompts (which show the tick as it began), and never leads the slowest agent by more than
  `run_ahead` ticks; barrier ticks (dependency.barrier) and agents with a compaction job wait for
  everyone.

Prints the two walls per simulated hour and their ratio for each run_ahead: an upper bound on what a
real out-of-order schedule would measure against an endpoint with that latency.
"""
from __future__ import annotations

import hashlib
import math
import os
import statistics
from dataclasses import dataclass, field

from memories.job_records import Compaction
from memories.jobs import run_inline
from voyage.bench.fake_openai_server import simple_action
from voyage.bench.fleet import MANAGE, ROOT, ScratchDB
from voyage.calls.factory import gateway_for
from voyage.engine.runner import create_run
from voyage.engine.tick import acting_order, run_tick
from voyage.engine.world import RunWorld
from voyage.gateway.base import ACTION
from voyage.gateway.offline import OfflineModel
from voyage.models import Run
from world.rules.dependency import Turn, attrition_possible, barrier, turn_of, within_reach
from world.time import is_overnight, plan_tick

RUN_AHEAD = (1, 2, 4, 8)
TICKS_PER_HOUR = 20  # a tick is three minutes


@dataclass
class AgentTick:
    room: int  # where it stood when the tick began
    order: int  # its place in the tick's seeded order
    pending: bool  # it made an action call this tick
    walk: tuple[int, ...] = ()  # the rooms it walked into this tick
    shout_into: tuple[int, ...] = ()  # the rooms its shout carried into (adjacent, low ambient noise)
    rounds: tuple[str, ...] = ()  # its other calls this tick, by purpose, in the order they were made
    memory_job: bool = False  # a compaction job of its runs after this tick commits (not a dream: `trace`)
    attrition: int = 0  # its attrition counter when the tick began
    key: str = ""  # its persona key, which seeds its latencies (the same in any database)


@dataclass
class TickTrace:
    tick: int
    barrier: str | None
    agents: dict[int, AgentTick] = field(default_factory=dict)
    shared_rounds: tuple[str, ...] = ()  # calls of no agent (the bulletin)


# --- the trace: a real run, tick by tick -------------------------------------------------------
POLICIES = ("offline", "fake-server")


def fake_server_policy(seed: int):
    """The answers of `bench concurrency`'s chat-completions server (voyage/bench/fake_openai_server.py):
    every action speaks to the room or examines an item, one tick long; nobody walks or shouts."""
    import json

    class FakeServerPolicy(OfflineModel):
        name = "fake-server"

        def complete(self, request):
            answer = super().complete(request)
            if request.purpose == ACTION:
                answer.text = json.dumps(simple_action(request.messages))
            return answer

    return FakeServerPolicy(seed)


def trace(scenario: str, ticks: int, seed: int = 1912, policy: str = "offline",
          agents: int | None = None) -> tuple[list[TickTrace], dict[int, list[int]], int]:
    from voyage.bench.scale import grown_scenario

    run = create_run(grown_scenario(scenario, agents), seed=seed, schedule=Run.SIMULTANEOUS, target_ticks=ticks)
    gateway = gateway_for(run) if policy == "offline" else fake_server_policy(seed)
    world = RunWorld(run)
    traced = []
    try:
        for tick in range(ticks):
            plan = plan_tick(tick, run.reflection_schedule)
            start = {a.id: (a.location_id, a.attrition) for a in world.living()}
            order = {aid: n for n, aid in enumerate(acting_order(world, tick))}
            w = run_tick(world, gateway)
            actions = {c.agent_id for c in w.calls if c.purpose == "action"}
            rounds: dict[int | None, list[str]] = {}
            for c in w.calls:
                if c.purpose != "action":
                    rounds.setdefault(c.agent_id, []).append(c.purpose)
            # a compaction's agent waits for its tick to be read for the commit; a dreamer does not
            # (its dream's inputs are fixed at its own last step of the tick: voyage/engine/ahead.py)
            jobs = {job.agent_id for job in w.memory_jobs if isinstance(job, Compaction)}
            walked: dict[int, list[int]] = {}
            shouted: dict[int, tuple[int, ...]] = {}
            for e in w.events:
                if e.kind == "move" and e.actor_id is not None:
                    walked.setdefault(e.actor_id, []).append(e.room_id)
                elif e.kind == "communicate" and e.data.get("volume") == "shout":
                    shouted[e.actor_id] = tuple(r for r in world.graph.neighbours[e.room_id]
                                                if world.rooms[r].ambient_noise == "low")
            why = barrier(plan, overnight=is_overnight(tick), interventions_due=False, attrition_due=False)
            if None in rounds and why is None:
                why = "calls for everyone"
            t = TickTrace(tick, why, shared_rounds=tuple(rounds.get(None, ())))
            for aid, (room, attrition) in start.items():
                t.agents[aid] = AgentTick(room=room, order=order.get(aid, len(order)), pending=aid in actions,
                                          walk=tuple(walked.get(aid, ())),
                                          shout_into=shouted.get(aid, ()), rounds=tuple(rounds.get(aid, ())),
                                          memory_job=aid in jobs, attrition=attrition,
                                          key=world.agents[aid].persona.key)
            traced.append(t)
            w.commit(w.start_tick + 1, lambda jobs: run_inline(jobs, gateway))
    finally:
        gateway.close()
    return traced, {rid: list(ns) for rid, ns in world.graph.neighbours.items()}, run.attrition_threshold


# --- the two clocks --------------------------------------------------------------------------
def latency(seed: int, agent: str | None, tick: int, purpose: str, n: int, median_s: float, sigma: float) -> float:
    digest = hashlib.sha256(f"{seed}:{agent}:{tick}:{purpose}:{n}".encode()).digest()
    u1 = (int.from_bytes(digest[:8], "big") + 1) / (2 ** 64 + 1)
    u2 = int.from_bytes(digest[8:16], "big") / 2 ** 64
    z = math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)  # Box-Muller: one standard normal
    return median_s * math.exp(sigma * z)


def _draws(t: TickTrace, seed: int, median_s: float, sigma: float):
    """Per agent: its action call's latency (0 without one) and its later calls' latencies in order."""
    action = {aid: latency(seed, at.key, t.tick, "action", 0, median_s, sigma) if at.pending else 0.0
              for aid, at in t.agents.items()}
    later = {aid: [latency(seed, at.key, t.tick, p, n, median_s, sigma) for n, p in enumerate(at.rounds)]
             for aid, at in t.agents.items()}
    shared = [latency(seed, None, t.tick, p, n, median_s, sigma) for n, p in enumerate(t.shared_rounds)]
    return action, later, shared


def lockstep_tick(t: TickTrace, action, later, shared) -> float:
    """The slowest action call, then for each later round (by purpose, in order) its slowest call."""
    wall = max(action.values(), default=0.0)
    by_round: dict[str, float] = {}
    for aid, at in t.agents.items():
        for purpose, s in zip(at.rounds, later[aid]):
            by_round[purpose] = max(by_round.get(purpose, 0.0), s)
    return wall + sum(by_round.values()) + sum(shared)


SAFE, SAME_ROOM_UNSAFE = "safe", "same_room_only_unsafe"


@dataclass
class Clocks:
    lockstep_s: float
    out_of_order_s: float


def clocks(traced: list[TickTrace], neighbours, threshold: int, run_ahead: int, *, seed: int = 1912,
           median_s: float = 1.0, sigma: float = 0.6, mode: str = SAFE) -> Clocks:
    """Lock-step and out-of-order walls for the traced ticks. `mode`:
    - SAFE: an agent builds its next prompt once its own tick is done and everyone whose turn reached
      it has resolved, and once the answers are in of those who might have (they stayed away);
      resolving waits the same way for those before it in the tick's order;
    - SAME_ROOM_UNSAFE: only those who began the tick in its room count (breaks the transcript).
    What others do after resolving (reflections, trust calls) touches only their own memory."""
    lock = 0.0
    done: dict[int, float] = {}  # when each agent finished the previous tick (its later calls too)
    resolved: dict[int, float] = {}  # when its turn in the previous tick was resolved
    answered: dict[int, float] = {}  # when its answer for the previous tick came in
    finished: list[float] = []  # when the last agent finished each tick
    previous: TickTrace | None = None
    for k, t in enumerate(traced):
        action, later, shared = _draws(t, seed, median_s, sigma)
        step = lockstep_tick(t, action, later, shared)
        lock += step
        floor = finished[k - run_ahead - 1] if k - run_ahead - 1 >= 0 else 0.0
        everyone = max(done.values(), default=0.0)
        # someone alone could reach the attrition threshold this tick: its rumour reaches everyone
        risky = any(attrition_possible(at.attrition, 1, threshold) for at in t.agents.values())
        if t.barrier or risky or previous is None:
            done = {aid: everyone + step for aid in t.agents}
            answered = resolved = dict(done)
            finished.append(everyone + step)
            previous = t
            continue
        before = _turns(previous, neighbours)
        near_before = Near(before)
        start = {}
        for aid in t.agents:
            s = max(done.get(aid, 0.0), floor)
            if aid in previous.agents and previous.agents[aid].memory_job:
                s = max(s, everyone)  # its compaction or dream is done once the tick commits
            if aid in before:
                mine = before[aid][1]
                s = max([s] + [_clear_of(mine, before[b], resolved[b], answered[b], mode)
                               for b in near_before.of(mine) if b != aid])
            start[aid] = s
        turns = _turns(t, neighbours)
        near = Near(turns)
        answer = {aid: start[aid] + action[aid] for aid in t.agents}
        resolved = {}
        for aid in sorted(t.agents, key=lambda a: t.agents[a].order):
            # not before those its turn reaches have built their prompts: they see the tick as it began
            r = max([answer[aid]] + [start[x] for x in near.of(turns[aid][0])
                                     if _clear_of(turns[x][0], turns[aid], 1.0, 1.0, mode)])
            for b in near.of(turns[aid][1]):  # those before it in the tick's order
                if b in resolved:
                    r = max(r, _clear_of(turns[aid][1], turns[b], resolved[b], answer[b], mode))
            resolved[aid] = r
        done = {aid: max([_clear_of(turns[aid][1], turns[b], resolved[b], answer[b], mode)
                          for b in near.of(turns[aid][1])], default=0.0)
                + sum(later[aid]) + sum(shared) for aid in t.agents}
        answered = answer
        finished.append(max(done.values(), default=everyone))
        previous = t
    return Clocks(lock, finished[-1] if finished else 0.0)


def _clear_of(mine: Turn, theirs: tuple[Turn, Turn], resolved: float, answered: float, mode: str) -> float:
    """When an agent whose own turn was `mine` is clear of another: when that one resolved, if its
    turn reached it; when its answer came in, if only its possible turn did (it stayed away); else 0."""
    possible, known = theirs
    if mode == SAME_ROOM_UNSAFE:
        return resolved if mine.start == known.start or mine.rooms & known.rooms else 0.0
    if within_reach(mine, known):
        return resolved
    return answered if within_reach(mine, possible) else 0.0


class Near:
    """The agents whose turns could be within reach of a turn, found by room: each agent's possible
    turn (the first of its pair) holds its known one (a walk goes one exit, a shout into the rooms
    next door), so an agent whose possible turn is out of reach is clear of any turn of it, in either
    mode, and `_clear_of` gives 0 for it. Looking only at these gives the same clocks as looking at
    everyone, in time proportional to who is near rather than to the world (at 2,048 agents the
    all-pairs loops took minutes a tick)."""

    def __init__(self, turns: dict[int, tuple[Turn, Turn]]):
        self.standing: dict[int, list[int]] = {}  # room -> agents whose possible turn may stand there
        self.touching: dict[int, list[int]] = {}  # room -> agents whose possible turn may touch it
        for aid, (possible, _) in turns.items():
            for room in possible.rooms:
                self.standing.setdefault(room, []).append(aid)
            for room in possible.touches:
                self.touching.setdefault(room, []).append(aid)

    def of(self, turn: Turn) -> set[int]:
        """Every agent whose possible turn is within reach of `turn` (a superset of those within reach)."""
        out: set[int] = set()
        for room in turn.rooms:
            out.update(self.touching.get(room, ()))
        for room in turn.touches:
            out.update(self.standing.get(room, ()))
        return out


def _turns(t: TickTrace, neighbours) -> dict[int, tuple[Turn, Turn]]:
    """Per agent: (its turn as others must assume while its call is out, its turn once known)."""
    out = {}
    for aid, at in t.agents.items():
        known = turn_of(at.room, neighbours, pending=False, walk=at.walk, shout_into=at.shout_into)
        out[aid] = (turn_of(at.room, neighbours, pending=True) if at.pending else known, known)
    return out


# --- the command -------------------------------------------------------------------------------
def inner(scenario: str, ticks: int, median_ms: float, sigma: float, policy: str = "offline", seed: int = 1912,
          agents: int | None = None) -> dict:
    traced, neighbours, threshold = trace(scenario, ticks, seed, policy, agents)
    ceilings = {}
    clock = {}
    for ahead in RUN_AHEAD:
        clock[ahead] = c = clocks(traced, neighbours, threshold, ahead, seed=seed, median_s=median_ms / 1000, sigma=sigma)
        ceilings[f"run_ahead_{ahead}"] = _figures(c, ticks)
    c = clocks(traced, neighbours, threshold, max(RUN_AHEAD), seed=seed, median_s=median_ms / 1000, sigma=sigma,
               mode=SAME_ROOM_UNSAFE)
    ceilings[f"{SAME_ROOM_UNSAFE}_run_ahead_{max(RUN_AHEAD)}"] = _figures(c, ticks)
    reach = []
    for t in traced:
        if t.barrier:
            continue
        turns = _turns(t, neighbours)
        near = Near(turns)
        for aid, at in t.agents.items():
            if at.pending:
                reach.append(sum(1 for b in near.of(turns[aid][0])
                                 if b != aid and within_reach(turns[aid][0], turns[b][0], neighbours)))
    return {
        "bench": "ahead", "scenario": scenario, "policy": policy, "ticks": ticks, "latency": f"lognormal:{median_ms:g}:{sigma:g}",
        "agents": len(traced[0].agents) if traced else 0,
        "calls_per_tick": round(statistics.mean(sum(at.pending for at in t.agents.values()) for t in traced), 2),
        "barrier_ticks": sum(1 for t in traced if t.barrier),
        "lockstep_s_per_sim_hour": round(clock[1].lockstep_s * TICKS_PER_HOUR / ticks, 2),
        "ceiling": ceilings,
        "within_reach_mean": round(statistics.mean(reach), 2) if reach else 0.0,
        "cpus": os.cpu_count(),
    }


def _figures(c: Clocks, ticks: int) -> dict:
    return {"s_per_sim_hour": round(c.out_of_order_s * TICKS_PER_HOUR / ticks, 2),
            "ratio": round(c.lockstep_s / c.out_of_order_s, 3) if c.out_of_order_s else None}


def outer(scenario: str, ticks: int, median_ms: float, sigma: float, policy: str = "offline",
          agents: int | None = None) -> dict:
    import json
    import subprocess

    grown = ["--agents", str(agents)] if agents else []
    with ScratchDB("sqlite") as db:
        done = subprocess.run(MANAGE + ["bench", "ahead", "--inner", "--scenario", scenario, "--ticks", str(ticks),
                                        "--latency", f"lognormal:{median_ms:g}:{sigma:g}", "--policy", policy, *grown],
                              env=db.env(), cwd=ROOT, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"bench ahead failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
