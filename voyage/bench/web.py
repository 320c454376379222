"""Benchmark: the dashboards on a 3-day offline run, in a scratch database of their own.

Prints overview_p50_ms / _p95_ms, room_p50_ms / _p95_ms and inspector_p50_ms / _p95_ms (server
time of 20 loads each, through Django's full request handling in-process; a page that does not
exist in this build is reported as null, with its name in `absent`), each page's queries per load
(`overview_queries`: the last load's; `_queries_first`: the first's, which fills the page's caches)
and its first load's time (`_first_ms`), this process's CPU time per load (`_cpu_p50_ms`, `_cpu_p95_ms`:
the page's own cost, which a machine busy with other work does not stretch), lag_p50_ms / lag_p95_ms
(from a tick's commit to each of its events reaching each websocket client, over loopback from
daphne) and clients / received_share (the smallest share of the run's new events that any client
received, in order, while a run advanced).

Three processes besides this one, all on the scratch database: `bench web --inner --step pages`
(the page timings), daphne (the websockets), and `bench web --inner --step advance` (advances a
fresh run, printing the wall-clock time of every tick's commit).
"""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time

from django.conf import settings

from memories.models import Memory
from voyage.bench.fleet import MANAGE, ROOT, ScratchDB, WebServer, manage, manage_json
from voyage.engine.runner import advance, create_run
from voyage.models import Event
from voyage.records.timetravel import committed_as
from voyage.web.costs import percentile
from voyage.web.heap import freeze_startup_heap
from world.models import Scenario

LOADS = 20
SETTLE_S = 5  # after the last commit, how long clients may take to catch up before they are counted
STAFF = ("bench-staff", "bench-password")


# --- outer: this process ----------------------------------------------------------------------
def outer(days: float, ticks: int, clients: int) -> dict:
    engine = settings.DATABASES["default"]["ENGINE"]
    if engine.endswith("sqlite3"):
        db = ScratchDB("sqlite")
    else:
        db = ScratchDB("postgres", server_url=os.environ["DATABASE_URL"])
    with db:
        env = db.env(VOYAGE_STAFF_USER=STAFF[0], VOYAGE_STAFF_PASSWORD=STAFF[1])
        manage(env, "ensure_staff")
        run_id = manage_json(env, "run_voyage", "--days", str(days))[-1]["run_id"]
        figures = manage_json(env, "bench", "web", "--inner", "--step", "pages", "--run-id", str(run_id))[-1]
        figures.update(_live(env, ticks, clients, db.dir))
    figures.update(bench="web", days=days, database="sqlite" if engine.endswith("sqlite3") else "postgres",
                   poll_ms=settings.VOYAGE_FEED_POLL_MS, cpus=os.cpu_count(), load_1m_after=round(os.getloadavg()[0], 2))
    return figures


def _live(env: dict, ticks: int, clients: int, workdir) -> dict:
    web = WebServer(env, workdir / "daphne.log")
    writer = subprocess.Popen(MANAGE + ["bench", "web", "--inner", "--step", "advance", "--ticks", str(ticks)],
                              env=env, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        run_id = json.loads(writer.stdout.readline())["run_id"]
        return asyncio.run(_listen(f"127.0.0.1:{web.port}", run_id, clients, writer))
    finally:
        writer.kill()
        web.stop()


async def _listen(host: str, run_id: int, clients: int, writer: subprocess.Popen) -> dict:
    import aiohttp

    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        await _log_in(session, host)
        received: list[list[tuple[int, int, str, float]]] = [[] for _ in range(clients)]
        sockets = [await session.ws_connect(f"ws://{host}/ws/runs/{run_id}/feed/?after=-1",
                                            headers={"Origin": f"http://{host}"}) for _ in range(clients)]

        async def read(n: int) -> None:
            async for message in sockets[n]:
                now = time.time()
                for item in json.loads(message.data)["items"]:
                    if "seq" in item:
                        received[n].append((item["seq"], item["tick"], item["kind"], now))

        readers = [asyncio.create_task(read(n)) for n in range(clients)]
        writer.stdin.write("go\n")
        writer.stdin.flush()
        commits: dict[int, float] = {}
        loop = asyncio.get_running_loop()
        while True:
            line = json.loads(await loop.run_in_executor(None, writer.stdout.readline))
            if "done" in line:
                break
            commits[line["tick"]] = line["at"]
        expected = line["seqs"]
        deadline = time.monotonic() + SETTLE_S
        while time.monotonic() < deadline and any(len(r) < expected for r in received):
            await asyncio.sleep(0.1)
        for ws in sockets:
            await ws.close()
        for task in readers:
            task.cancel()
    lags = sorted((at - commits[committed_as(tick, kind)]) * 1000
                  for r in received for _, tick, kind, at in r if committed_as(tick, kind) in commits)
    shares = [_in_order_share([seq for seq, *_ in r], expected) for r in received]
    return {"lag_p50_ms": round(percentile(lags, 50), 1), "lag_p95_ms": round(percentile(lags, 95), 1),
            "clients": clients, "received_share": round(min(shares), 4), "events": expected,
            "ticks_advanced": len(commits)}


def _in_order_share(seqs: list[int], expected: int) -> float:
    """The share of the run's events 0..expected-1 a client received at their place in order."""
    if not expected:
        return 1.0
    return sum(1 for n, seq in enumerate(seqs[:expected]) if seq == n) / expected


async def _log_in(session, host: str) -> None:
    async with session.get(f"http://{host}/accounts/login/") as response:
        await response.read()
    token = next(c.value for c in session.cookie_jar if c.key == "csrftoken")
    async with session.post(f"http://{host}/accounts/login/", data={
            "username": STAFF[0], "password": STAFF[1], "csrfmiddlewaretoken": token},
            headers={"Referer": f"http://{host}/accounts/login/"}, allow_redirects=False) as response:
        if response.status != 302:
            raise RuntimeError(f"bench: logging in failed ({response.status})")


# --- inner: on the scratch database -----------------------------------------------------------
def pages(run_id: int) -> dict:
    """Server time of each page, 20 loads each, through the test client (the whole Django stack:
    middleware, session, view, template), logged in as staff."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.db.models import Count
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import Resolver404, resolve

    client = Client()
    client.force_login(get_user_model().objects.get(username=STAFF[0]))
    freeze_startup_heap()  # as the web process does once started (voyage/asgi.py)
    room = (Event.objects.filter(run_id=run_id, kind="communicate").values("room__key").annotate(n=Count("id"))
            .order_by("-n").values_list("room__key", flat=True).first())
    agent = (Memory.objects.filter(run_id=run_id).values("agent__persona__key").annotate(n=Count("id"))
             .order_by("-n").values_list("agent__persona__key", flat=True).first())
    figures, absent = {}, []
    for name, path in (("overview", f"/runs/{run_id}/"), ("room", f"/runs/{run_id}/rooms/{room}/"),
                       ("inspector", f"/runs/{run_id}/agents/{agent}/")):
        try:
            resolve(path)
        except Resolver404:
            for figure in ("p50_ms", "p95_ms", "cpu_p50_ms", "cpu_p95_ms", "queries"):
                figures[f"{name}_{figure}"] = None
            absent.append(name)
            continue
        times, cpu, queries = [], [], []
        for _ in range(LOADS):
            with CaptureQueriesContext(connection) as captured:
                began, began_cpu = time.perf_counter(), time.process_time()
                response = client.get(path, HTTP_HOST="127.0.0.1")
                times.append((time.perf_counter() - began) * 1000)
                cpu.append((time.process_time() - began_cpu) * 1000)
            queries.append(len(captured))
            if response.status_code != 200:
                raise RuntimeError(f"bench: {path} answered {response.status_code}")
        figures[f"{name}_first_ms"] = round(times[0], 1)  # the first load fills the page's caches
        figures[f"{name}_queries_first"], figures[f"{name}_queries"] = queries[0], queries[-1]
        times.sort()
        figures[f"{name}_p50_ms"] = round(percentile(times, 50), 1)
        figures[f"{name}_p95_ms"] = round(percentile(times, 95), 1)
        cpu.sort()  # this process's CPU time: what the page costs, without the waits a busy machine adds
        figures[f"{name}_cpu_p50_ms"], figures[f"{name}_cpu_p95_ms"] = (round(percentile(cpu, q), 1) for q in (50, 95))
    figures["absent"] = absent
    figures["events_in_run"] = Event.objects.filter(run_id=run_id).count()
    return figures


def advance_fresh_run(ticks: int) -> None:
    """Create a run, say its id, wait for "go" on stdin, advance it, printing each commit's time."""
    run = create_run(Scenario.objects.get(slug="1912"), seed=42, target_ticks=ticks, name="bench web")
    print(json.dumps({"run_id": run.pk}), flush=True)
    sys.stdin.readline()
    advance(run, ticks, on_tick=lambda tick: print(json.dumps({"tick": tick, "at": time.time()}), flush=True))
    print(json.dumps({"done": True, "seqs": Event.objects.filter(run=run).count()}), flush=True)
