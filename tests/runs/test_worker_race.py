"""Two real processes racing for the same run never both advance it: every chunk claims the run
with a conditional UPDATE naming the tick it starts from, and only one claim can win."""
from __future__ import annotations

import json
import subprocess

import pytest

from tests.oracle import assert_same, reference_with_events, transcript_through
from tests.services import require
from voyage.bench.fleet import MANAGE, ROOT, ScratchDB, manage_json, postgres_available

TICKS = 150  # the crash tests' run: the reference is computed once
SEED = 7

# Each racer hammers the run: read its tick, try a chunk from there, print what happened.
RACER = """
import json, os, sys, time
from voyage.models import Run
from voyage.runs.tasks import run_chunk
while not os.path.exists({go!r}):
    time.sleep(0.005)
while True:
    run = Run.objects.get(pk={run_id})
    if run.state != "queued" and run.state != "running":
        break
    out = run_chunk(run.pk, run.tick)
    print(json.dumps(out), flush=True)
    if out["outcome"] == "skipped":
        time.sleep(0.002)
"""


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_two_processes_never_both_advance_a_run(kind, tmp_path):
    if kind == "postgres":
        require("PostgreSQL at 127.0.0.1:5432", postgres_available())
    expected = reference_with_events(TICKS, SEED)
    with ScratchDB(kind) as db:
        env = db.env(VOYAGE_CHUNK_TICKS=5)
        run_id = manage_json(env, "start_voyage", "--ticks", str(TICKS), "--seed", str(SEED))[0]["run_id"]
        go = tmp_path / "go"
        code = RACER.format(go=str(go), run_id=run_id)
        racers = [subprocess.Popen(MANAGE + ["shell", "-c", code], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True) for _ in range(2)]
        go.touch()
        outputs = [racer.communicate(timeout=180) for racer in racers]
        for racer, (_, err) in zip(racers, outputs):
            assert racer.returncode == 0, err[-3000:]
        results = [[json.loads(line) for line in out.splitlines() if line.startswith("{")] for out, _ in outputs]

        advanced = sorted((r["from"], r["to"], r["worker"]) for rs in results for r in rs
                          if r["outcome"] in ("chained", "finished"))
        # The chunks that advanced tile [0, TICKS) exactly: no tick advanced twice, none skipped.
        edges = [0] + [to for _, to, _ in advanced]
        assert [frm for frm, _, _ in advanced] == edges[:-1] and edges[-1] == TICKS, advanced
        # The claims kept the racers apart, not the per-tick guard: nobody lost a tick it computed.
        assert not [r for rs in results for r in rs if r["outcome"] in ("lost", "failed")]
        # It was a race: both processes won chunks and both were refused some.
        for rs in results:
            outcomes = {r["outcome"] for r in rs}
            assert "skipped" in outcomes and outcomes & {"chained", "finished"}, outcomes
        assert db.run_row(run_id) == (TICKS, "finished", "")
        assert_same(transcript_through(db.query, run_id), expected["events"])
