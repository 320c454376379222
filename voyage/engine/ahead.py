"""The out-of-order schedule: in the simultaneous schedule, agents whose calls cannot affect each
other stop waiting for each other, and the transcript is the one lock-step writes.

Lock-step takes a tick's steps in their one order (world/rules/tick_order.py, which tick.py walks):
wake, compaction check, prompt and call, resolution, attrition, reflections, dreams (and the steps
for everyone, which make a tick a barrier); within a step, the agents in the tick's seeded order.
Every step of every agent has its place in that order, its key (tick, step, place). Here each agent
walks the same table (`Cursor.on`, `Stretch.steps`), taking each of its steps as soon as no step
before it in that order could tell the difference: a step runs once every agent still behind it is
too far away to matter — an agent with k resolutions still to make before that key may go k exits
from where it stands, and be noticed one exit beyond (a shout, an arrival). The rule is
world/rules/dependency.py's (`reach`, `answered`), the one `bench ahead` computes its ceiling with.
Of the steps in one room, only a resolution changes what others read (where people are, what they
remember, their ledgers, whether they live), and a wake what a prompt there shows; the other steps
read and write their own agent's row and memory. So two steps that could tell which came first run in
lock-step's order, and each step sees what it would have seen in lock-step.

What lock-step's order alone would not keep:
- Rows. Each tick has its TickWriter; a step writes with its key, and the commit puts the rows in
  lock-step's order (TickWriter.at, Keyed). Ticks commit one at a time, in tick order, each when
  every agent is past it; before an agent starts a tick, the writer of the one before keeps its row
  and ledger as they stood (TickWriter.keep).
- The database. A step that reads committed rows waits for the ticks before it to commit: a
  prompt whose recalled rows would be searched, a hard compaction. An agent whose compaction a
  tick asked for starts the next tick once that tick's rows have been read for its commit
  (`_commit_ready`, TickWriter.prepare), where, as in lock-step, the job's inputs are fixed and the
  compaction counts as done (memories.job_inputs.promise), not waiting for the rows to be written.
  A dreamer does not wait: what its dream reads is fixed at its own dreams step, the tick's last to
  touch its rows, rung or ledger (`_dreams`, memories.job_inputs.fixed_sleeper). The jobs are done
  after the write, on the thread the commits are written on where there is one
  (memories.jobs.Behind), else inline. A prompt of tick t shows what the jobs asked up to
  t - SHOW_LAG wrote, and waits for the commit that records the last of them (`_shown_ready`;
  SHOW_LAG is past any run_ahead, so it seldom does).
- Barriers. Ticks that involve everyone (world/rules/dependency.py: overnight, spouse collision,
  wind-down, nightfall, bulletin, interventions, a possible attrition rumour) run in lock-step
  (tick.run_tick) once everyone has reached them.
- Reflections. An agent due to reflect does so alone, its three rounds of calls going out as the
  last came back (steps.reflecting), while the others go on; its rows are staged so that the
  commit puts them in a batch's order.
- The lead. No agent starts a tick more than `run_ahead` ticks ahead of the slowest.

Only committed ticks count: a run killed anywhere resumes at the first uncommitted tick, with the
same transcript; work done ahead of it is done again.
"""
from __future__ import annotations

import heapq
import math
import time
from collections import Counter, deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from queue import Empty, SimpleQueue
from typing import Callable

from django.db import connection
from memories.ablation import off
from memories.compaction import HARD, check_before_action, compaction_due_now
from memories.context import recall_cached, recall_terms, shown_rows
from memories.dreams import dreams_tonight
from memories.job_inputs import fixed_sleeper
from memories.job_records import SHOW_LAG, Dreams, Sleeper
from memories.jobs import Behind as WrittenBehind
from voyage.engine import steps
from voyage.engine.tick import place
from voyage.engine.world import RunWorld
from voyage.engine.writer import TickWriter
from voyage.gateway.base import Gateway
from voyage.models import MAX_RUN_AHEAD, LLMCall
from world.rules.actions import ActionFail, parse_action
from world.rules.dependency import (NOWHERE, Behind, Turn, answered, attrition_possible, barrier, exits_to,
                                    latest_within, reaches, still, walking_on)
from world.rules.tick_order import ATTRITION, CHECK, DREAMS, EACH, NEXT, PROMPT, REFLECT, RESOLVE, TICK, WAKE
from world.time import TickPlan, is_overnight, plan_tick

FIRST = EACH[0].number  # an agent's first step of a tick (the wake)
STEP_SPAN = 16  # more than any step's number (world/rules/tick_order.py): ranks (`rank`) keep the keys' order
assert max(s.number for s in TICK) < STEP_SPAN
# The steps a cursor stands at after a step that changes nothing the rule reads of it (dependency.Behind:
# which resolutions it has left, where it stands, whether it lives or sleeps, its answer, whether a wake or
# a prompt of its own is still to come): at a prompt after its check, at the reflections after its
# attrition or a round of its reflection, at the dreams after its reflection, at the next tick's wake
# after its dreams. What it may reach is what it was (Stretch._wake_waiters).
SAME_REACH = frozenset((PROMPT, REFLECT, DREAMS, FIRST))
GATHER = 0.05  # of a call's median latency: how long the returns gather before the schedule takes them
NOBODY = math.inf  # the earliest tick in a room with nobody in it (Earliest)
WRITTEN = object()  # put on Stretch.arrived when the commit thread has written a tick
# What a prompt of tick t shows of the memory jobs is fixed by tick t - SHOW_LAG (memories/job_records.py):
# past any lead an agent may take, the tick that records those jobs has committed before its prompt.
assert SHOW_LAG > MAX_RUN_AHEAD, "an agent running ahead would wait for a commit before most prompts"


@dataclass(frozen=True)
class Asked:
    """An agent's action call while it is out or unresolved: the situation its prompt showed, the
    request, and the call's future (its answer)."""
    situation: object
    request: object
    call: object


@dataclass(frozen=True)
class Reflecting:
    """An agent's reflection while it is under way: its rounds of calls (steps.reflecting), the
    calls of the round that is out (None before the first), and its rows' place in the reflection
    step (stage, persona key: TickWriter.at, TickWriter.stage)."""
    steps: object
    out: list | None
    key: tuple


def place_number(place: tuple) -> int:
    """A place in the tick's order (voyage.engine.tick.place: eight bytes of a hash, then the persona
    key) as a number in the same order, but for the persona key (`rank` adds the cursor's number,
    in the persona keys' order); 0 for no place, which comes before every place."""
    return int.from_bytes(place[0], "big") + 1 if place else 0


def rank(tick: int, step: int, place_n: int, n: int) -> int:
    """A key (tick, step, place) as one number in the same order, for the cursor numbered `n` among
    the cursors sorted by persona key (0 with no place): compared many times a step (the heap, the
    scan), a number costs less than a tuple of a tuple."""
    return ((tick * STEP_SPAN + step) << 97) | (place_n << 32) | n


@dataclass(eq=False)
class Cursor:
    """Where one agent is: the tick it is in and its next step."""
    agent: object
    tick: int
    step: int = FIRST
    place: tuple = ()
    n: int = 0  # its number among the cursors sorted by persona key (Stretch.run): breaks ties of place
    deciding: bool = False
    asked: Asked | None = None  # while its action call is out or unresolved
    answer_in: bool = False  # its action call's return has been taken (Stretch._arrive)
    reflecting: Reflecting | None = None  # while it reflects
    turn: Turn | None = None  # what its resolution touches, once its answer is in (Stretch._turn)
    action: object = None  # its answer parsed, once in (Stretch._turn; steps.settle need not parse it again)
    died_at: int | None = None
    attrition_tick: int = -1  # the last tick whose attrition it has counted
    key: tuple = field(init=False)  # (tick, step, place): its next step's place in lock-step's order (`at`)
    rank: int = field(init=False)  # the key as a number in the same order (`rank`)
    place_n: int = field(init=False, default=0)  # its place as a number (`place_number`)
    places: dict = field(init=False, default_factory=dict)  # tick -> its place in it (Stretch._place)
    done: bool = field(init=False, default=False)  # dead, and past the tick it died in (Stretch._recount)
    clear_to: int = field(init=False, default=-1)  # its own room is clear of those behind up to this key's rank
    clear_room: int | None = field(init=False, default=None)  # (Stretch._clear: it stays clear)
    blocker: Cursor | None = field(init=False, default=None)  # the last cursor found in its way (_nobody_reaches)
    # what its step asked when the blocker was found, (key, its rank, rooms, wakes, shells): while the blocker
    # still reaches them, its events need not wake the cursor (Stretch._wake_waiters); None if not a scan's
    asking: tuple | None = field(init=False, default=None)
    turn_now: Callable[[], Turn] | None = field(init=False, default=None)  # Stretch._turn of it (the rule's `Behind.turn`)

    def __post_init__(self):
        self.place_n = place_number(self.place)
        self.key = (self.tick, self.step, self.place)
        self.rank = rank(self.tick, self.step, self.place_n, self.n)

    def at(self, step: int, *, tick: int | None = None, place: tuple | None = None) -> None:
        """Move it to `step` (of `tick`, at `place` in it)."""
        if tick is not None:
            self.tick = tick
        if place is not None:
            self.place = place
            self.place_n = place_number(place)
        self.step = step
        self.key = (self.tick, step, self.place)
        self.rank = rank(self.tick, step, self.place_n, self.n)

    def on(self) -> None:
        """Move it to its next step in the tick's table (world/rules/tick_order.py), or to the first
        of the next tick."""
        if self.step in NEXT:
            self.at(NEXT[self.step])
        else:
            self.at(FIRST, tick=self.tick + 1, place=())

    @property
    def working(self) -> int:
        """The tick it is in: one it has started, else the one before (which it has finished)."""
        return self.tick if self.step > FIRST else self.tick - 1


class Earliest:
    """The earliest tick any cursor not done stands in, room by room (`of`; a room with nobody there
    is absent): the scan skips a room whose people are all too far ahead in ticks to reach the step it
    asks about (`Stretch._nobody_reaches`). Kept as a cursor starts a tick, dies or changes room
    (`Stretch._recount`), so it costs per move, not per scan."""

    def __init__(self):
        self.of: dict[int, int] = {}
        self._ticks: dict[int, dict[int, int]] = {}  # room -> its cursors, counted by the tick they are in
        self._where: dict[int, tuple[int, int] | None] = {}  # id(cursor) -> (room, tick) as counted

    def put(self, c: Cursor) -> None:
        """Count the cursor where it stands now, in the tick it is in (nowhere once done)."""
        where = None if c.done else (c.agent.location_id, c.tick)
        before = self._where.get(id(c))
        if before == where:
            return
        self._where[id(c)] = where
        if before is not None:
            self._count(*before, -1)
        if where is not None:
            self._count(*where, 1)

    def _count(self, room: int, tick: int, n: int) -> None:
        ticks = self._ticks.get(room)
        if ticks is None:
            ticks = self._ticks[room] = {}
        left = ticks.get(tick, 0) + n
        if left:
            ticks[tick] = left
        else:
            del ticks[tick]
        if ticks:
            self.of[room] = min(ticks)
        else:
            self.of.pop(room, None)


@dataclass
class Stretch:
    """Ticks from the run's tick up to the next barrier (or `until`), out of order."""
    world: RunWorld
    gateway: Gateway
    run_ahead: int
    until: int
    memory: Callable
    due: set[int]
    on_commit: Callable[[TickWriter], bool]  # after each commit; False stops the stretch (a budget used up)
    writers: dict[int, TickWriter] = field(default_factory=dict)
    barriers: dict[int, str | None] = field(default_factory=dict)
    sleepers: dict[int, list] = field(default_factory=dict)
    job_agents: dict[int, set[int]] = field(default_factory=dict)
    plans: dict[int, TickPlan] = field(default_factory=dict)  # each tick's plan (`_plan`), made once
    work: Counter = field(default_factory=Counter)  # what the schedule did: examinations, steps, reaches
    committer: ThreadPoolExecutor | None = field(default=None, init=False)  # the commit thread (`__enter__`)
    writing: tuple | None = field(default=None, init=False)  # (writer, future) of the tick it is writing

    def __post_init__(self):
        # what an agent's step does, for each step of the table taken one agent at a time (EACH)
        self.steps = {WAKE: self._start, CHECK: self._check, PROMPT: self._prompt, RESOLVE: self._resolve,
                      ATTRITION: self._attrition, REFLECT: self._reflect, DREAMS: self._dreams}

    def run(self) -> int:
        """Run until everyone stands at the next barrier (or `until`) and every tick before it has
        committed; returns the run's tick then.

        Event by event: a cursor is looked at again only when something it waits for has happened —
        the cursor that stood in its way took a step, or its call came back, or a tick committed, or
        the slowest agent moved on (`_park`, `_wake`) — so an event costs in proportion to the agents
        it can touch, not the world. `work` counts what it did (examinations, reach computations)."""
        world, run = self.world, self.world.run
        self.balls = world.balls  # the rooms within k exits of a room (the rule's), kept from stretch to stretch
        self.cursors = [Cursor(a, run.tick, n=n, attrition_tick=run.tick - 1)
                        for n, a in enumerate(sorted(world.living(), key=lambda a: a.persona.key))]
        self.by_agent = {c.agent.id: c for c in self.cursors}
        self.numbers = {c.agent.persona.key: c.n for c in self.cursors}  # for the ranks of keys (`_rank`)
        self.low = run.tick  # the tick the slowest agent is in (_recount)
        self.stop = self.until
        self.halted = False
        self.ready: list = []  # the heap of cursors to look at, by key (its rank: no two alike)
        self.queued: set[int] = set()  # id() of those in it
        self.waiters: dict[int, set[Cursor]] = {}  # id(cursor) -> the cursors it stands in the way of
        self.for_commit: set[Cursor] = set()  # waiting for the next commit
        self.prepared = run.tick - 1  # the last tick whose rows have been read for its commit (`_commit_ready`)
        self.on_prepared: dict[int, set[Cursor]] = {}  # tick -> its memory jobs' agents, waiting for that
        self.on_lead: dict[int, set[Cursor]] = {}  # tick -> waiting for the slowest, to start it
        self.at_tick: Counter = Counter()  # the cursors not done, by the tick they are in
        self.counted: dict[int, int | None] = {}  # id(cursor) -> the tick it is counted in (None: done)
        self.earliest = Earliest()  # the earliest tick in each room, for the scan
        self.reflect_cleared: dict[int, set[int]] = {}  # tick -> rooms clear up to its reflections (`_reflect_clear`)
        for c in self.cursors:
            c.turn_now = partial(self._turn, c)
            self._recount(c)
        self.arrived: SimpleQueue = SimpleQueue()  # cursors whose call came back (from the calls' threads)
        self.took: deque[float] = deque()  # how long each call that came back took (from the calls' threads)
        self.log_latency: float | None = None  # the log of a call's median latency, as far as seen (`_gather`)
        self.out = 0  # calls started whose return has not been taken from `arrived`
        for c in self.cursors:
            self._wake(c)
        while True:
            self._drain()
            if self.halted:
                return run.tick
            if self._commit_ready():
                continue
            if run.tick >= self.stop:
                return run.tick
            if self.out == 0:  # nothing will come back: only a cursor no event would wake could go
                if self._sweep():
                    continue
                raise RuntimeError(f"run {run.pk}: the out-of-order schedule is stuck at tick {run.tick}: "
                                   + "; ".join(f"{c.agent.persona.key} {c.key[:2]}" for c in self._active()))
            self._arrive(self._await())
            arrived = self.arrived
            while not arrived.empty():  # (this thread alone takes from it)
                self._arrive(arrived.get_nowait())

    # --- the loop ------------------------------------------------------------------------------
    def _await(self) -> Cursor:
        """The next cursor whose call has come back: those that came back while the thread let them
        gather (`_gather`), else the next to come (blocks until one has)."""
        if (pause := self._gather()) > 0:
            self.work["gathered"] += 1
            time.sleep(pause)
            try:
                return self.arrived.get_nowait()
            except Empty:
                pass
        self.work["blocked"] += 1
        return self.arrived.get()

    def _gather(self) -> float:
        """How long to let the calls' returns gather before taking them: GATHER of a call's median
        latency (the running geometric mean of those that came back, the median of a lognormal).
        Each time this thread sleeps and wakes again it pays in CPU; taken one by one, as they come
        back at a second's latency, the returns made it wake for each. A return that comes while it
        waits waits at most that long, and most not at all (docs/out-of-order.md)."""
        took = self.took
        while took:
            seconds = took.popleft()
            log = math.log(max(seconds, 1e-4))
            self.log_latency = log if self.log_latency is None else self.log_latency + (log - self.log_latency) / 32
        return 0.0 if self.log_latency is None else GATHER * math.exp(self.log_latency)

    def _active(self) -> list[Cursor]:
        return [c for c in self.cursors if not c.done]

    def _drain(self) -> None:
        """Look at every cursor woken, in key order, until none can take a step."""
        while self.ready:
            _, c = heapq.heappop(self.ready)
            self.queued.discard(id(c))
            self._examine(c)

    def _examine(self, c: Cursor) -> bool:
        """Take the cursor's steps while it may; then leave it where what it waits for will wake it."""
        self.work["examined"] += 1
        progressed = False
        while not c.done:
            self.why = None
            c.asking = None
            if not self._step(c):
                self._park(c, self.why)
                break
            progressed = True
            self._stepped(c)
        return progressed

    def _sweep(self) -> bool:
        """Every cursor, in key order: only when nothing is out and nobody was woken, which the
        events should never leave (counted in `work`, and tested to stay 0)."""
        self.work["sweeps"] += 1
        progressed = False
        for c in sorted(self._active(), key=lambda c: c.key):
            progressed |= self._examine(c)
        self._drain()
        return progressed

    def _wake(self, c: Cursor) -> None:
        if not c.done and id(c) not in self.queued:
            self.queued.add(id(c))
            heapq.heappush(self.ready, (c.rank, c))

    def _wake_waiters(self, c: Cursor, same_reach: bool = False) -> None:
        """Something about the cursor changed (a step, its answer, its agent): those it stood in the way
        of look again, unless it still stands in their way (what it may reach is asked again; looking
        again, each would find it first and wait for it again). `same_reach`: the change cannot have
        changed what it may reach (`SAME_REACH`), only whether it is still behind."""
        waiting = self.waiters.pop(id(c), None)
        if not waiting:
            return
        kept = {w for w in waiting if self._still_in_way(c, w, same_reach)}
        for w in waiting - kept if kept else waiting:
            self._wake(w)
        if kept:
            self.work["kept waiting"] += len(kept)
            self.waiters[id(c)] = kept

    def _still_in_way(self, o: Cursor, c: Cursor, same_reach: bool = False) -> bool:
        """Does `o` still reach what `c`'s step asked when `o` was found in its way (`Cursor.asking`)? With
        `same_reach`, it reached it when last asked, and only whether it is still behind is asked now."""
        if c.asking is None or o.done or c.done:
            return False
        key, before, rooms, wakes, shells = c.asking
        return o.rank < before and (same_reach or self._reaches(o, key, rooms, wakes, shells))

    def _park(self, c: Cursor, why) -> None:
        """Where the cursor waits (`why`, set by the step that could not go): on the cursor in its
        way, for its own calls (`_arrive`), for a commit, for a tick's rows to be read for its commit,
        for the slowest agent, or for the stretch to end (the next barrier)."""
        if why is None or why == "halted":
            return
        kind = why[0]
        if kind == "cursor":
            self.waiters.setdefault(id(why[1]), set()).add(c)
        elif kind == "commit":
            self.for_commit.add(c)
        elif kind == "lead":
            self.on_lead.setdefault(why[1], set()).add(c)
        elif kind == "prepared":
            self.on_prepared.setdefault(why[1], set()).add(c)
        # "call": its call's return wakes it; "stop": nothing does before the stretch ends

    def _stepped(self, c: Cursor) -> None:
        """The cursor took a step: those it stood in the way of look again, and it may have moved
        the slowest agent on."""
        self.work["steps"] += 1
        if c.step == FIRST or c.died_at is not None:  # it may have left a tick (its others leave none)
            self._recount(c)
        self._wake_waiters(c, same_reach=c.step in SAME_REACH)

    def _recount(self, c: Cursor) -> None:
        """Count the cursor in the tick it is in (not at all once done); when the slowest agent moves
        on, those waiting for it to start a tick look again."""
        c.done = c.died_at is not None and c.tick > c.died_at
        self.earliest.put(c)
        now = None if c.done else c.tick
        if id(c) in self.counted and self.counted[id(c)] == now:
            return
        before = self.counted.get(id(c))
        if before is not None:
            self.at_tick[before] -= 1
            if not self.at_tick[before]:
                del self.at_tick[before]
        if now is not None:
            self.at_tick[now] += 1
        self.counted[id(c)] = now
        low = min(self.at_tick, default=self.low)
        if low > self.low:  # only grows
            self.low = low
            for t in [t for t in self.on_lead if t <= low + self.run_ahead]:
                for w in self.on_lead.pop(t):
                    self._wake(w)

    def _call(self, c: Cursor, future):
        """A call the cursor started: its return wakes the cursor (`arrived`, from the call's thread),
        and says how long it took (`took`, for `_gather`)."""
        self.out += 1
        began = time.monotonic()

        def back(_):
            self.took.append(time.monotonic() - began)
            self.arrived.put(c)

        future.add_done_callback(back)
        return future

    def _arrive(self, c: Cursor) -> None:
        """A call of the cursor's has come back: it may go on, and what its resolution touches may now
        be known, which may let those it stood in the way of go. (Or the commit thread has written a
        tick: `_committed`.)"""
        self.out -= 1
        if c is WRITTEN:
            w, future = self.writing
            self.writing = None
            self._committed(w, future.result())
            return
        self.work["arrivals"] += 1
        if c.asked is not None:  # (a reflection's calls are out only once its action has resolved)
            c.answer_in = True
        self._wake(c)
        self._wake_waiters(c)

    def _step(self, c: Cursor) -> bool:
        """Take the agent's next step if nothing before it stands in its way; False if it must wait
        (and `why`: what for)."""
        if self.halted:
            self.why = "halted"
            return False
        return self.steps[c.step](c)

    def _writer(self, c: Cursor, step: int, *key) -> TickWriter:
        """The writer of the cursor's tick, writing for its `step` (at its place, or at `key`)."""
        w = self.writers.get(c.tick)
        if w is None:
            w = self.writers[c.tick] = TickWriter(self.world, c.tick, prompts_in_write=self.committer is not None)
        return w.at(step, *(key or (c.place,)))

    # --- the steps -----------------------------------------------------------------------------
    def _start(self, c: Cursor) -> bool:
        t = c.tick
        if t >= self.stop:
            self.why = ("stop",)
            return False
        if t > self.low + self.run_ahead:
            self.why = ("lead", t)
            return False
        if self._barrier(t):
            self.stop = t
            self.why = ("stop",)
            return False
        if c.agent.id in self.job_agents.get(t - 1, ()) and t - 1 > self.prepared:
            self.why = ("prepared", t - 1)
            return False  # its job is fixed, and its compaction counted done, as tick t - 1 is read for its commit
        c.at(WAKE, place=self._place(c, t))
        a = c.agent
        wakes = a.asleep and a.busy_until_tick <= t  # steps.wake
        may_decide = a.alive and (not a.asleep or wakes) and a.destination_id is None  # steps.decides, roughly
        if not self._clear(c, c.key, {a.location_id}, wakes, further=(t, PROMPT, c.place) if may_decide else None):
            return False
        if (before := self.writers.get(t - 1)) is not None:
            before.keep(c.agent)
        steps.wake(self.world, self._writer(c, WAKE), c.agent)
        c.deciding = steps.decides(self.world, c.agent, t)
        c.on()
        return True

    def _check(self, c: Cursor) -> bool:
        if c.deciding:
            key = c.key  # (c.tick, CHECK, c.place)
            if not self._clear(c, key, {c.agent.location_id}):
                return False
            due = compaction_due_now(self.world, c.agent)
            if due == HARD and not self._hard_ready(c, key):
                return False  # it compacts from the committed rows now, as in lock-step
            if due is not None:  # (check_before_action does nothing otherwise)
                w = self._writer(c, CHECK)
                jobs = len(w.memory_jobs)
                check_before_action(self.world, w, c.agent, self.gateway)
                if len(w.memory_jobs) > jobs:
                    self.job_agents.setdefault(c.tick, set()).add(c.agent.id)
        c.on()
        return True

    def _hard_ready(self, c: Cursor, key: tuple) -> bool:
        """A hard compaction reads the committed rows: its tick's before it committed, and no step
        before it left (seldom: soft compactions come first)."""
        if self.world.run.tick < c.tick:
            self.why = ("commit",)
            return False
        for o in self.cursors:
            if o is not c and not o.done and o.key < key:
                self.why = ("cursor", o)
                return False
        return True

    def _prompt(self, c: Cursor) -> bool:
        if c.deciding:
            a = c.agent
            if not self._clear(c, c.key, {a.location_id}):  # (c.tick, PROMPT, c.place)
                return False
            situation = self.world.situation(a)  # built once: the recall check's and the prompt's
            if not self._recall_ready(c, situation) or not self._shown_ready(c.tick):
                self.why = ("commit",)
                return False
            takes_schema, dialect = self.gateway.action_shape(a.persona.key)
            situation, request = steps.action_request(self.world, a, c.tick, schema=takes_schema, dialect=dialect,
                                                      situation=situation)
            c.asked = Asked(situation, request, self._call(c, self.gateway.start(request)))
        c.on()
        return True

    def _recall_ready(self, c: Cursor, situation) -> bool:
        """A prompt that searches the agent's older rows needs them committed, as in lock-step: the
        rows before those the prompt shows, and the oldest row it shows (where the search starts). In
        the cached layout that is the log's, which may be newer than the hot window's (`shown_rows`)."""
        world, a = self.world, c.agent
        if recall_cached(world, a, tuple(recall_terms(situation))):
            return True
        shown = shown_rows(world, a)
        oldest = shown[0] if shown else None
        if oldest is None or oldest.id is not None or oldest.writer_tick is None or oldest.writer_tick >= c.tick:
            return True
        return world.run.tick > oldest.writer_tick

    def _shown_ready(self, t: int) -> bool:
        """A prompt of tick t shows what the memory jobs asked up to tick t - SHOW_LAG wrote: once the
        tick that records the last of them has committed, they are done (here if no worker has) and
        loaded, as at the start of a lock-step tick. With SHOW_LAG past any run_ahead an agent seldom
        waits here for a commit."""
        if self.world.run.tick <= t - SHOW_LAG:
            return False
        self.world.memory.ready(t, self.gateway)
        return True

    def _resolve(self, c: Cursor) -> bool:
        a, world = c.agent, self.world
        if c.asked is not None and not c.answer_in:
            self.why = ("call",)
            return False
        touched = self._touches(c)
        if not self._clear(c, c.key, touched):  # (c.tick, RESOLVE, c.place)
            return False
        w = self._writer(c, RESOLVE)
        near = [o for rid in touched for o in world.occupants(rid)]
        if c.asked is not None:
            asked = c.asked
            if a.alive:
                steps.settle(world, w, a, asked.situation, asked.request, asked.call.result(), c.action)
            else:
                w.call(asked.request, asked.call.result(), LLMCall.SKIPPED, "died before the action resolved")
            c.asked, c.answer_in = None, False
        elif a.alive:
            steps.travel_or_collapse(world, w, a)
        c.turn, c.action = None, None
        for o in near:  # what they are, and so what they may reach, may have changed
            if not o.alive:
                self._died(o, c.tick)
            if (oc := self.by_agent.get(o.id)) is not None and oc is not c:
                if not o.alive:  # (alive, it stays counted where it was: only its own resolution moves it)
                    self._recount(oc)
                self._wake_waiters(oc)
        self.earliest.put(c)  # it may have changed room (RunWorld.move: a resolution moves only its own agent)
        c.on()
        return True

    def _touches(self, c: Cursor) -> frozenset[int]:
        """The rooms the agent's resolution may touch, now that its answer is in."""
        return self._turn(c).touches

    def _turn(self, c: Cursor) -> Turn:
        """What the agent's resolution may touch, now that its answer is in (the rule's turn: where it
        may stand, what it may touch). Read off the agent as it is now: until it resolves, a resolution
        before its own may still change it (end its life, put it to sleep, stop its walk). Only the
        answer, parsed, is kept on the cursor (`action`; its room cannot change before it resolves)."""
        a, world = c.agent, self.world
        room = a.location_id
        if not a.alive:
            return NOWHERE
        if c.asked is None:
            if a.destination_id is not None and not a.asleep:  # it walks on (travel_or_collapse)
                return walking_on(room, world.graph.next_hop(room, a.destination_id))
            return still(room)
        if c.turn is None:
            answer = c.asked.call.result()
            action = ActionFail("") if answer.failed else parse_action(answer.text)
            c.action = None if answer.failed else action
            c.turn = answered(room, world.graph.neighbours, action)
        return c.turn

    def _died(self, o, tick: int) -> None:
        c = self.by_agent.get(o.id)
        if c is not None and c.died_at is None:
            c.died_at = tick

    def _attrition(self, c: Cursor) -> bool:
        a = c.agent
        if a.alive:
            # whether it is alone in a private room: who is there by its turn in this step tells (in any
            # other room it is never alone, whoever comes or goes: steps.alone_too_long)
            if self.world.rooms[a.location_id].private and not self._clear(
                    c, c.key, {a.location_id}, further=(c.tick, REFLECT, ())):  # (c.tick, ATTRITION, c.place)
                return False
            if steps.alone_too_long(self.world, self._writer(c, ATTRITION), c.agent):
                raise RuntimeError(f"run {self.world.run.pk}: an attrition rumour at tick {c.tick}, "
                                   "which the schedule had not taken together")
        c.attrition_tick = c.tick
        c.on()
        return True

    def _reflect(self, c: Cursor) -> bool:
        if c.reflecting is not None:
            return self._reflect_on(c)
        a = c.agent
        if a.alive:
            # whether it is due reads its own row, which steps of this tick up to the attrition may change
            if not self._reflect_clear(c):
                return False
            plan = self._plan(c.tick)
            why = steps.reflection_due(self.world, a, plan.new_tick, plan)
            if why is not None:  # its three rounds of calls, as they come back (steps.reflecting)
                key = (0, a.persona.key)  # a batch's order: by persona key, within each stage
                w = self._writer(c, REFLECT, *key)
                c.reflecting = Reflecting(steps.reflecting(self.world, w, [(a, why)]), None, key)
                return self._reflect_on(c)
        c.on()
        return True

    def _reflect_clear(self, c: Cursor) -> bool:
        """Is the agent's room clear of those behind the tick's reflections (a key at no agent's place)?
        The same question for everyone there: asked once a room and tick, once clear (those behind only
        move on, so it stays clear; and one who has resolved this tick, as each who asks has, reaches
        nothing before the reflections, so the asker left out of the scan changes nothing)."""
        t, room = c.tick, c.agent.location_id
        cleared = self.reflect_cleared.setdefault(t, set())
        if room in cleared:
            self.work["clear shared"] += 1
            return True
        if not self._clear(c, (t, REFLECT, ()), {room}):
            return False
        cleared.add(room)
        return True

    def _reflect_on(self, c: Cursor) -> bool:
        rounds, out = c.reflecting.steps, c.reflecting.out
        if out is not None and not all(f.done() for f in out):
            self.why = ("call",)
            return False
        w = self._writer(c, REFLECT, *c.reflecting.key)
        try:
            requests = next(rounds) if out is None else rounds.send([f.result() for f in out])
        except StopIteration:
            c.reflecting = None
            c.on()
            return True
        c.reflecting = Reflecting(rounds, [self._call(c, self.gateway.start(r)) for r in requests], w.key[1:])
        return True

    def _dreams(self, c: Cursor) -> bool:
        """Whether it dreams: the job, for all of the tick's sleepers at once, is asked at the commit."""
        a, run = c.agent, self.world.run
        if a.alive and not off(run, "dreams") and dreams_tonight(a, self._plan(c.tick)):
            # what its dream reads is fixed now: nothing after this step of the tick touches its rows,
            # rung or ledger, and its next tick may (so it need not wait for this one's commit)
            self.sleepers.setdefault(c.tick, []).append(fixed_sleeper(self.world, Sleeper(a.id, a.slept_since_tick)))
        c.on()
        return True

    # --- what involves everyone ------------------------------------------------------------------
    def _commit_ready(self) -> bool:
        """Commit the run's tick if everyone is past it: its rows are read off the world here
        (TickWriter.prepare), then written on the commit thread, if there is one, while the agents
        go on (the return of that write is an event like a call's: `_committed`); else here."""
        run = self.world.run
        t = run.tick
        w = self.writers.get(t)
        if w is None or (self.at_tick and self.low <= t):  # someone is still in tick t (or it is being written)
            return False
        if sleepers := self.sleepers.pop(t, None):
            w.at(DREAMS)
            w.memory_jobs.append(Dreams.asked(run.pk, w.tick, sleepers))
        del self.writers[t]
        active = self._active()
        slowest = min(c.tick for c in active)  # the tick the slowest agent is in, or is about to start
        leads = {c.agent.persona.key: max(0, c.working - slowest) for c in active if c.agent.alive}
        prepared = w.prepare(t + 1, run_fields={"leads": _leads(run.leads, leads)})
        self.prepared = t
        for c in self.on_prepared.pop(t, ()):
            self._wake(c)
        if self.committer is None:
            self._committed(w, w.write(prepared))
        else:  # run.tick stays t until it is written: nothing that waits for the commit goes meanwhile
            self.out += 1
            self.writing = w, self.committer.submit(w.write, prepared)
            self.writing[1].add_done_callback(lambda _: self.arrived.put(WRITTEN))
        return True

    def _committed(self, w: TickWriter, written) -> None:
        """Tick w.start_tick is in the database: the run's tick moves on, and what waited for it goes."""
        world, t = self.world, w.start_tick
        w.finish(written, self.memory)
        self.job_agents.pop(t, None)
        self.reflect_cleared.pop(t, None)
        waiting, self.for_commit = self.for_commit, set()
        for c in waiting:
            self._wake(c)
        plan = self._plan(t)
        if plan.digest:
            steps.digest(world, w)
        if not self.on_commit(w):
            self.halted = True  # what ran ahead of this tick is thrown away with the world

    # --- the commit thread -----------------------------------------------------------------------
    def __enter__(self) -> "Stretch":
        """With memory jobs done on a thread of their own (memories.jobs.Behind: not inside a
        transaction, a test's, which another connection could neither see nor wait out), the
        commits' writes go to that thread too, in turn with the jobs; on SQLite, where
        TickWriter.write's ids stay off the rows until `finish`."""
        if connection.vendor == "sqlite" and isinstance(self.memory, WrittenBehind):
            self.committer = self.memory.thread
        return self

    def __exit__(self, *exc) -> None:
        """A write still under way when the stretch stops on an error is let finish (and counted,
        if it committed), so the run's tick says what the database holds."""
        if self.writing is not None:
            w, future = self.writing
            self.writing = None
            if future.exception() is None:
                w.finish(future.result(), self.memory)

    def _barrier(self, t: int) -> bool:
        if t not in self.barriers:
            run = self.world.run
            threshold = run.attrition_threshold
            self.barriers[t] = barrier(
                self._plan(t), overnight=is_overnight(t), interventions_due=t in self.due,
                attrition_due=any(attrition_possible(c.agent.attrition, t - c.attrition_tick, threshold)
                                  for c in self._active() if c.agent.alive))
        return self.barriers[t] is not None

    # --- the rule --------------------------------------------------------------------------------
    def _clear(self, c: Cursor, key: tuple, rooms: set[int], wakes: bool = False, further: tuple | None = None) -> bool:
        """Can no step before `key`, of any agent still behind it, touch one of `rooms`? (If not, `why`:
        the cursor in the way.) `further`: a later key of the agent's own, in the same room, whose steps
        up to it would ask the same; clear up to it, they need not ask again (`clear_to`: those behind
        only move on, so what is clear stays clear)."""
        if not rooms:
            return True
        room = c.agent.location_id
        if c.clear_room == room and self._rank_of(c, key) <= c.clear_to and not wakes and rooms == {room}:
            return True
        if further is not None:
            if self._nobody_reaches(c, further, rooms, wakes):
                c.clear_to, c.clear_room = self._rank_of(c, further), room
                return True
        return self._nobody_reaches(c, key, rooms, wakes)

    def _nobody_reaches(self, c: Cursor, key: tuple, rooms: set[int], wakes: bool) -> bool:
        """No cursor behind `key` reaches one of `rooms`? The one last found in the cursor's way is asked
        first: it is often still there (its call is still out, or it has yet to resolve), and one
        reach settles it where a scan of everyone near would."""
        radius = key[0] - self.low + 1  # no agent behind can reach further (dependency.reach)
        shells = self.balls.around(next(iter(rooms)), radius) if len(rooms) == 1 else \
            self.balls.shells(frozenset(rooms), radius)
        before = self._rank_of(c, key)
        o = c.blocker
        if o is not None and not o.done and o.rank < before:
            self.work["reach"] += 1
            if self._reaches(o, key, rooms, wakes, shells):
                self.work["in the way again"] += 1
                self.why = ("cursor", o)
                c.asking = key, before, rooms, wakes, shells
                return False
        in_room, by_agent, earliest = self.world.in_room, self.by_agent, self.earliest.of
        self.work["clear"] += 1
        looked = 0
        # only those who stand near enough to matter (RunWorld.in_room: where each is), nearest first;
        # from `exits` away, only one far enough behind in ticks to walk the rest (in a room whose
        # earliest tick is later, nobody is)
        for exits, shell in enumerate(shells):
            latest = latest_within(key[0], exits)
            for rid in shell:
                if earliest.get(rid, NOBODY) > latest:
                    continue
                for aid in in_room[rid]:
                    o = by_agent.get(aid)
                    looked += 1
                    if o is None or o is c or o.done or o.rank >= before or o.tick > latest:
                        continue
                    self.work["reach"] += 1
                    if reaches(self._behind(o, key), key, rooms, exits, wakes):
                        self.work["looked"] += looked
                        self.why = ("cursor", o)
                        c.blocker = o
                        c.asking = key, before, rooms, wakes, shells
                        return False
        self.work["looked"] += looked
        return True

    def _reaches(self, o: Cursor, key: tuple, rooms, wakes: bool, shells: tuple) -> bool:
        """Does the cursor, behind `key`, reach one of `rooms` (`shells`: the rings round them), asked by
        its distance from them? Beyond the rings it reaches none."""
        exits = exits_to(shells, o.agent.location_id)
        return exits is not None and reaches(self._behind(o, key), key, rooms, exits, wakes)

    def _behind(self, o: Cursor, key: tuple) -> Behind:
        """The cursor as the rule sees it, behind the step at `key`."""
        a, tick = o.agent, key[0]
        answer_in = o.step == RESOLVE and (o.asked is None or o.answer_in)
        return Behind(o.tick, o.step, o.place if tick == o.tick and o.place else self._place(o, tick), a.location_id,
                      a.alive, a.asleep, a.busy_until_tick, o.turn_now if answer_in else None)

    def _plan(self, t: int) -> TickPlan:
        """Tick t's plan (world.time.plan_tick), made once: several of every agent's steps ask for it,
        and the run's reflection schedule does not change within a stretch (interventions wait for
        its barrier)."""
        plan = self.plans.get(t)
        if plan is None:
            plan = self.plans[t] = plan_tick(t, self.world.run.reflection_schedule)
        return plan

    def _place(self, c: Cursor, tick: int) -> tuple:
        """The cursor's agent's place in tick's order (voyage.engine.tick.place), made once: the scans
        ask for it at the ticks of the steps they ask about, its own or a tick or two on."""
        p = c.places.get(tick)
        if p is None:
            if len(c.places) > 3:  # it is asked about from the tick it is in on: forget those before
                c.places = {t: p for t, p in c.places.items() if t >= c.tick}
            p = c.places[tick] = place(self.world.seed, tick, c.agent.persona.key)
        return p

    def _rank_of(self, c: Cursor, key: tuple) -> int:
        """A key the cursor asks about as a number (`rank`): its own next step's (`Cursor.rank`), one of its
        own at its place, one at no place, else its place's with the number of the cursor whose it is."""
        if key is c.key:
            return c.rank
        tick, step, p = key
        if not p:
            return rank(tick, step, 0, 0)
        if p is c.place:
            return rank(tick, step, c.place_n, c.n)
        return rank(tick, step, place_number(p), self.numbers[p[1]])


def _leads(before: dict, now: dict) -> dict:
    """The run's `leads`: each agent's lead at this commit, and the sum, count and maximum of all."""
    before = before or {}
    values = list(now.values())
    return {"now": now, "sum": before.get("sum", 0) + sum(values), "n": before.get("n", 0) + len(values),
            "max": max([before.get("max", 0), *values])}
