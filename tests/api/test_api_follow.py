"""Following a running run through the API: a client polls /events?after=<last seq it holds> while
a real worker process (qcluster) advances the run, against daphne serving the API, all on one
scratch database. It receives every event exactly once, in order, and saw them while the run was
still going."""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from voyage.bench.fleet import ROOT, ScratchDB, Worker, manage, manage_json, wait_for

TICKS = 60
pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, token: str) -> dict:
    request = urllib.request.Request(url, headers={"X-API-Key": token})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def up(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=1)
    except urllib.error.HTTPError:
        return True  # it answered (401 without a token)
    except OSError:
        return False
    return True


def test_an_event_cursor_follows_a_run_the_worker_advances(tmp_path):
    with ScratchDB("sqlite") as db:
        env = db.env(VOYAGE_CHUNK_TICKS=5)
        token = manage(env, "shell", "-c", (
            "from django.contrib.auth.models import User; from voyage.models import ApiToken; "
            "u = User.objects.create_user('follower', is_staff=True); t = ApiToken(name='follow', user=u); "
            "s = t.issue(); t.save(); print(s)")).strip().splitlines()[-1]
        run_id = manage_json(env, "start_voyage", "--ticks", str(TICKS), "--seed", "13")[0]["run_id"]
        port = free_port()
        base = f"http://127.0.0.1:{port}/api"
        log = open(tmp_path / "daphne.log", "wb")
        server = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
                                   "voyage.asgi:application"], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        worker = Worker(env, tmp_path / "worker.log")
        try:
            wait_for(lambda: up(f"{base}/runs"), 60, what="daphne")
            got, after, ticks_seen, deadline = [], -1, set(), time.monotonic() + 240
            while time.monotonic() < deadline:
                run = get(f"{base}/runs/{run_id}", token)
                page = get(f"{base}/runs/{run_id}/events?after={after}&limit=100", token)
                got += page["items"]
                if page["items"]:
                    after = page["items"][-1]["seq"]
                    ticks_seen.add(run["tick"])
                if run["state"] in ("finished", "failed") and not page["items"]:
                    break
                time.sleep(0.05)
            assert run["state"] == "finished" and run["tick"] == TICKS
        finally:
            worker.kill()
            server.terminate()
            server.wait(timeout=30)
            log.close()
        seqs = [e["seq"] for e in got]
        assert seqs == list(range(len(seqs)))
        total = db.query("SELECT COUNT(*) FROM event_log WHERE run_id = %s", (run_id,))[0][0]
        assert len(seqs) == total > 0
        assert len([t for t in ticks_seen if t < TICKS]) >= 2, "the events must have been followed while the run went"
