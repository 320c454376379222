"""One run's overview (`/runs/<id>/`): the simulated clock, the ship map, the live event feed, every
agent's rung and state (and, in the simultaneous schedule, how far it is ahead), model usage; and
`/runs/<id>/ship.json?tick=N`, the ship after any tick (time travel) or now, which the page's
JavaScript draws on the map."""
from __future__ import annotations

from django.db import connection
from django.db.models import Count, F, Q, Sum
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from memories.jobs import pending
from voyage.calls.usage import OFFLINE
from voyage.models import Event, LLMCall, Run
from voyage.records.timetravel import STATE_KINDS, AgentAt, LoggedEvent, committed_as, ship_after
from voyage.runs.state import state_text
from voyage.web import costs, feed
from voyage.web.access import staff_required
from voyage.web.health import run_panel
from voyage.web.judging import believability
from voyage.web.leads import leads_panel
from voyage.web.runs import buttons_for
from voyage.web.shipmap import lay_out, marker_spots
from world.models import AgentState, Exit, Room
from world.time import sim_clock

FEED_LIMIT = 150


def ship_layout(run: Run):
    rooms = Room.objects.filter(scenario_id=run.scenario_id).order_by("id")
    exits = Exit.objects.filter(scenario_id=run.scenario_id).order_by("id").values_list("a__key", "b__key")
    return lay_out([(r.key, r.name, r.deck, r.private) for r in rooms], list(exits))


def cast_of(run: Run) -> dict[str, dict]:
    """persona key -> what never changes during a run: name and home room."""
    return cast_and_ship(run)[0]


def ship_now(run: Run) -> dict[str, AgentAt]:
    return cast_and_ship(run)[1]


def cast_and_ship(run: Run) -> tuple[dict[str, dict], dict[str, AgentAt]]:
    """cast_of and ship_now from one query."""
    rows = AgentState.objects.filter(run=run).order_by("persona__key").values_list(
        "persona__key", "persona__display_name", "persona__home_node__key", "location__key", "asleep", "alive", "rung")
    cast = {key: {"name": name, "home": home} for key, name, home, *_ in rows}
    ship = {key: AgentAt(room=room, asleep=asleep, alive=alive, rung=rung) for key, _, _, room, asleep, alive, rung in rows}
    return cast, ship


def ship_then(run: Run, cast: dict[str, dict], tick: int) -> dict[str, AgentAt]:
    rows = (Event.objects.filter(run=run, tick__lte=tick, kind__in=STATE_KINDS).order_by("seq")
            .values_list("tick", "kind", "actor__persona__key", "room__key", "data"))
    return ship_after({key: c["home"] for key, c in cast.items()}, (LoggedEvent(*row) for row in rows), tick)


def markers(run: Run, layout, cast: dict[str, dict], ship: dict[str, AgentAt], rung_names: dict[int, str]) -> list[dict]:
    spots = marker_spots(layout, {key: at.room for key, at in ship.items()})
    out = []
    for key in sorted(ship):
        at, (x, y) = ship[key], spots[key]
        status = "dead" if not at.alive else "asleep" if at.asleep else "awake"
        out.append({"key": key, "name": cast[key]["name"], "room": at.room, "room_name": layout.rooms[at.room].name,
                    "x": x, "y": y, "rung": at.rung, "rung_name": rung_names.get(at.rung, ""), "asleep": at.asleep,
                    "alive": at.alive, "status": status})
    return out


def events_of_commit(run: Run, tick: int) -> list[dict]:
    """What happened in the tick that committed as `tick` (see timetravel.committed_as)."""
    rows = Event.objects.filter(run=run, tick__in=(tick - 1, tick)).order_by("seq").values(*feed.EVENT_FIELDS)
    names = feed.names_in(run.pk)
    return [feed.event_item(r, names) for r in rows if committed_as(r["tick"], r["kind"]) == tick]


def usage_of(run: Run, last_call: int) -> dict:
    """The run's model usage; `last_call`: the id of its latest call (feed.marks). Calls are only
    ever added, each with its figures, so the tables are kept in the cache under that id: a page load
    after nothing new (a paused or finished run, a reload within a tick) reads no call at all."""
    from django.core.cache import cache

    key = f"voyage:usage:v1:{run.uuid}:{last_call}"  # uuid: ids of deleted runs come back
    usage = cache.get(key)
    if usage is None:
        usage = usage_tables_of(run, last_call)
        cache.set(key, usage, timeout=3600)
    # the projection follows the run's tick and target, which change without a call
    return {**usage, "projected_rest": costs.projected_rest(usage["total"]["cost"], run.tick, run.target_ticks)}


def usage_tables_of(run: Run, upto_call: int) -> dict:
    """Totals by SQL (one row per purpose, agent and profile), latencies as one column for the
    percentiles: two queries for the tables by purpose, by agent and by model profile. `upto_call`:
    the calls up to that id only (feed.marks), so that both queries read the same calls while a run
    commits more between them (its first call of a kind would otherwise have a latency and no row)."""
    names = dict(AgentState.objects.filter(run=run).values_list("id", "persona__display_name"))
    calls = LLMCall.objects.filter(run=run, id__lte=upto_call).order_by()
    groups = [(g["purpose"], g["agent_id"], g["profile"] or OFFLINE, g["n"], g["tokens"] or 0, float(g["cost"] or 0),
               g["failures"], g["retries"] or 0)
              for g in calls.values("purpose", "agent_id", "profile").annotate(
                  n=Count("id"), tokens=Sum(F("prompt_tokens") + F("completion_tokens")), cost=Sum("cost"),
                  failures=Count("id", filter=Q(answered=False) | Q(outcome=LLMCall.ACTION_FAIL)),
                  retries=Sum(F("attempts") - 1))]
    latencies = plain_rows(calls.values_list("purpose", "agent_id", "profile", "latency_ms"))
    usage = costs.usage_tables([(purpose, agent, *figures) for purpose, agent, _, *figures in groups],
                               [(purpose, agent, latency) for purpose, agent, _, latency in latencies], names)
    by: dict[str, costs.Usage] = {}  # the same figures by the profile that answered (they add up to the total)
    for _, _, profile, *figures in groups:
        by.setdefault(profile, costs.Usage()).add(*figures)
    for _, _, profile, latency in latencies:
        if (profile or OFFLINE) in by:  # see costs.usage_tables
            by[profile or OFFLINE].latencies.append(latency)
    usage["by_profile"] = {k: by[k].figures() for k in sorted(by)}
    return usage


def plain_rows(queryset) -> list[tuple]:
    """The rows of a values_list query as the database driver gives them: for tens of thousands of
    plain columns, the ORM's per-row conversion costs more than the query."""
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def rung_names(run: Run) -> dict[int, str]:
    return {spec.level: spec.name for spec in run.scenario.rung_specs()}


@staff_required
def overview(request, run_id: int):
    run = get_object_or_404(Run.objects.select_related("scenario", "profile"), pk=run_id)
    last_seq, last_call = feed.marks(run.pk)  # first: the feed below is at least this new
    filters = {name: request.GET.get(name, "") for name in ("kind", "room", "agent")}
    layout = ship_layout(run)
    cast, ship = cast_and_ship(run)
    names = rung_names(run)
    agents = markers(run, layout, cast, ship, names)
    leads = leads_panel(run, cast)
    for a in agents:
        a["ahead"] = leads["agents"].get(a["key"], "") if leads else ""
    items = feed.recent_items(run.pk, (last_seq, last_call), limit=FEED_LIMIT,
                              names={key: c["name"] for key, c in cast.items()}, run_uuid=str(run.uuid), **filters)
    usage = usage_of(run, last_call)
    kinds = sorted(set(Event.objects.filter(run=run).order_by().values_list("kind", flat=True).distinct())
                   | set(feed.CALL_KINDS))
    return render(request, "web/overview.html", {
        "run": run, "state_text": state_text(run.state, pending(run.pk)), "clock": sim_clock(run.tick), "layout": layout, "agents": agents, "items": items,
        "filters": filters, "kinds": kinds, "rooms": sorted(layout.rooms.values(), key=lambda r: r.name),
        "cast": sorted(cast.items(), key=lambda kv: kv[1]["name"]), "usage": usage, "buttons": buttons_for(run.state, run.tick, run.target_ticks), "usage_tables": [("By purpose", usage["by_purpose"]), ("By agent", usage["by_agent"]),
                                                    ("By profile", usage["by_profile"])],
        "rung_levels": sorted(names.items()), "model_health": run_panel(run), "leads": leads,
        "interventions": run.interventions.select_related("room", "agent__persona"),  # one query, however many
        "b": believability(run), "judge_url": reverse("web:run_judge", args=[run.pk]),
        "live": {"run": run.pk, "last_seq": last_seq, "last_call": last_call, "tick": run.tick,
                 "filters": filters, "ship_url": f"/runs/{run.pk}/ship.json", "ws_path": f"/ws/runs/{run.pk}/feed/"},
    })


@staff_required
def ship_json(request, run_id: int):
    run = get_object_or_404(Run.objects.select_related("scenario"), pk=run_id)
    now = run.tick
    raw = request.GET.get("tick", "")
    try:
        tick = now if raw == "" else int(raw)
    except ValueError:
        return JsonResponse({"error": f"tick must be a whole number, not {raw!r}"}, status=400)
    if not 0 <= tick <= now:
        return JsonResponse({"error": f"run {run.pk} has ticks 0 to {now}; there is no tick {tick}"}, status=400)
    layout, (cast, ship) = ship_layout(run), cast_and_ship(run)
    if tick != now:
        ship = ship_then(run, cast, tick)
    return JsonResponse({"run": run.pk, "tick": tick, "now": now, "clock": sim_clock(tick), "live": tick == now,
                         "state": run.state, "state_text": state_text(run.state, pending(run.pk)), "agents": markers(run, layout, cast, ship, rung_names(run)),
                         "events": events_of_commit(run, tick),
                         "leads": leads_panel(run, cast) if tick == now else None})
