"""The agent inspector: an agent's context exactly as its next action call would be built, its strongest
ties (voyage/web/ties.py), its last
model calls (exact prompt, raw answer, outcome, tokens, latency, recalled rows), its memory stream
with full-text search, summaries and eras, dreams, diary, trust ledger over time and rung timeline.

Staff see everything, monologues included. The context comes from the engine's own
`action_request` (which calls `memories.context.action_messages`), and the search from
`memories.recall.recall`, so what this page shows is what the agent gets."""
from __future__ import annotations

import hashlib

from django.db.models import Prefetch
from django.core.exceptions import BadRequest
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from memories.models import DiaryEntry, Dream, Memory, MemoryKind, MemorySummary, TrustEntry, TrustHistory
from memories.recall import recall, terms_of
from voyage.engine.steps import action_request
from voyage.engine.world import RunWorld
from voyage.instruments.interviews import interviews_of
from voyage.models import Event, LLMCall, Run
from voyage.web.access import staff_required
from voyage.web.health import agent_panel
from voyage.web.judging import believability
from voyage.web.params import int_param
from voyage.web.feed import last_seq
from voyage.web.ties import ties_of
from world.models import AgentState
from world.time import sim_clock

CALLS_SHOWN = 12
STREAM_PAGE = 50
SEARCH_HITS = 25
SEARCH_CANDIDATES = 200  # staff may look further back than the context builder's 40
CALL_FIELDS = ("id", "tick", "purpose", "outcome", "detail", "answered", "prompt_tokens", "completion_tokens",
               "reasoning_tokens", "cached_tokens", "latency_ms", "attempts", "cost", "recalled")


def run_agent(run_id: int, agent_key: str) -> tuple[Run, AgentState]:
    """The run and its agent from one query (a second only to say which of the two is missing)."""
    agent = (AgentState.objects.select_related("run__scenario", "persona", "location", "destination")
             .filter(run_id=run_id, persona__key=agent_key).first())
    if agent is None:
        run = get_object_or_404(Run, pk=run_id)
        raise Http404(f"run {run.pk} has no agent {agent_key!r}")
    return agent.run, agent


def _page(request, run, agent, tab: str, template: str, **context):
    return render(request, template, {"run": run, "agent": agent, "tab": tab, "now": sim_clock(run.tick), **context})


def context_now(run: Run, agent_id: int):
    """The messages of the action call this agent would get at the run's current tick, and the ids of
    the rows recalled into them: built by the engine's own code on a freshly loaded world — after the
    memory jobs whose rows that call shows, as the engine has them done first (done here, as a fixture
    export does them, if no worker has: seldom, they were asked SHOW_LAG ticks before). No schema:
    the page shows the messages only."""
    world = RunWorld(run, minds=[agent_id])
    world.memory.ready(run.tick)
    _, request = action_request(world, world.agents[agent_id], run.tick, schema=False)
    return request.messages, request.recalled


def kept_context(run: Run, agent: AgentState, seq: int) -> tuple[list[dict], list[dict]]:
    """context_now's messages and the rows recalled into them, kept in the cache. A prompt is a
    function of what the run committed and its tick (docs/engine.md; the memory jobs it shows are
    done before it whenever a worker gets to them), so it is kept under what moves when that does:
    the run's tick and latest event seq (`seq`, feed.last_seq: an intervention between ticks is an
    event), the run's and the agent's rows as they stand (parameters, the agent's recall state) and
    the run's uuid. Building it loads a world: about half the page's time, and most of its queries."""
    from django.core.cache import cache

    rows = hashlib.sha1(repr((row_values(run), row_values(agent))).encode()).hexdigest()
    key = f"voyage:context:v1:{run.uuid}:{agent.pk}:{run.tick}:{seq}:{rows}"

    def build():
        messages, recalled = context_now(run, agent.id)
        return messages, _rows(agent, recalled)
    return cache.get_or_set(key, build, timeout=3600)


def row_values(row) -> tuple:
    """A model row's stored values, every column: what a key made of them follows."""
    return tuple(getattr(row, f.attname) for f in type(row)._meta.concrete_fields)


@staff_required
def agent_inspector(request, run_id: int, agent_key: str):
    run, agent = run_agent(run_id, agent_key)
    seq = last_seq(run.pk)  # the context, climbs and ties are kept under it
    messages, recalled = kept_context(run, agent, seq)
    calls = LLMCall.objects.filter(run=run, agent=agent).order_by("-id").values(*CALL_FIELDS)[:CALLS_SHOWN]
    return _page(request, run, agent, "now", "web/agents_inspector.html",
                 prompt=messages, recalled=recalled, calls=list(calls), climbs=climbs_of(run, agent, seq),
                 interviews=interviews_of(agent), model_health=agent_panel(run, agent.persona.key),
                 ties=ties_of(run, agent, seq), b=believability(run, agent.persona.key))


def climbs_of(run: Run, agent: AgentState, seq: int) -> list[dict]:
    """Each rung the agent reached, with the event that caused the climb: the interaction the
    engine logs just before the rung event (examining its own name or fear prop). Finding them
    walks the agent's events, which only a new event changes: they are kept in the cache under `seq`,
    the run's latest event seq (feed.last_seq), and its uuid (a reused id is another run)."""
    from django.core.cache import cache

    key = f"voyage:climbs:v1:{run.uuid}:{agent.pk}:{seq}"
    return cache.get_or_set(key, lambda: read_climbs(run, agent), timeout=3600)


def read_climbs(run: Run, agent: AgentState) -> list[dict]:
    climbs = list(Event.objects.filter(run=run, actor=agent, kind="rung").order_by("seq")
                  .values("seq", "tick", "text", "data", "room__key", "room__name"))
    causes = dict(Event.objects.filter(run=run, actor=agent, kind="interact", seq__in=[c["seq"] - 1 for c in climbs])
                  .values_list("seq", "text"))
    return [{**c, "clock": sim_clock(c["tick"]), "rung": c["data"].get("rung"), "cause_seq": c["seq"] - 1,
             "cause": causes.get(c["seq"] - 1, "")} for c in climbs]


def _rows(agent, ids) -> list[dict]:
    """Memory rows of this agent by id, in id order (a call's recalled rows)."""
    return list(Memory.objects.filter(agent=agent, id__in=list(ids)).order_by("id")
                .values("id", "tick", "kind", "importance", "text"))


@staff_required
def agent_call(request, run_id: int, agent_key: str, call_id: int):
    run, agent = run_agent(run_id, agent_key)
    call = get_object_or_404(LLMCall, pk=call_id, run=run, agent=agent)
    return _page(request, run, agent, "now", "web/agents_call.html",
                 call=call, prompt=call.prompt, recalled=_rows(agent, call.recalled), clock_at=sim_clock(call.tick))


@staff_required
def agent_memory(request, run_id: int, agent_key: str):
    """The raw stream, newest first, a page at a time; or, with `q`, the rows `recall` finds."""
    run, agent = run_agent(run_id, agent_key)
    query = request.GET.get("q", "").strip()
    kind = request.GET.get("kind", "")
    if kind and kind not in MemoryKind.values:
        raise BadRequest(f"no memory kind {kind!r}")
    context = {"query": query, "kind": kind, "kinds": MemoryKind.choices}
    if query:
        hits = recall(agent.id, query, k=SEARCH_HITS, now_tick=run.tick, candidates=SEARCH_CANDIDATES)
        context.update(hits=hits, terms=terms_of(query))
    else:
        before = int_param(request, "before")
        rows = Memory.objects.filter(agent=agent)
        if kind:
            rows = rows.filter(kind=kind)
        if before is not None:
            rows = rows.filter(id__lt=before)
        page = list(rows.order_by("-id").values("id", "tick", "kind", "importance", "depth", "text")[:STREAM_PAGE + 1])
        context.update(rows=page[:STREAM_PAGE], older=page[STREAM_PAGE - 1]["id"] if len(page) > STREAM_PAGE else None)
    return _page(request, run, agent, "memory", "web/agents_memory.html", **context)


@staff_required
def agent_past(request, run_id: int, agent_key: str):
    """Summaries (level 0) and eras (level 1+), dreams and the diary."""
    run, agent = run_agent(run_id, agent_key)
    summaries = list(MemorySummary.objects.filter(agent=agent).order_by("level", "first_row")
                     .values("id", "level", "first_row", "last_row", "row_count", "tick", "text", "folded_into_id"))
    return _page(request, run, agent, "past", "web/agents_past.html",
                 summaries=[s for s in summaries if s["level"] == 0],
                 eras=[s for s in summaries if s["level"] > 0],
                 dreams=Dream.objects.filter(agent=agent).order_by("-tick"),
                 diary=DiaryEntry.objects.filter(agent=agent).select_related("location").order_by("-date"))


@staff_required
def agent_trust(request, run_id: int, agent_key: str):
    """The trust ledger: each entry now, and every change to it over time."""
    run, agent = run_agent(run_id, agent_key)
    entries = (TrustEntry.objects.filter(agent=agent).select_related("other__persona")
               .prefetch_related(Prefetch("history", queryset=TrustHistory.objects.order_by("tick", "id")))
               .order_by("-score", "other__persona__display_name"))
    return _page(request, run, agent, "trust", "web/agents_trust.html", entries=entries)
