"""The batch runner remembers like the worker does (issue 8, item 1).

A foreground `run_voyage` does its own compaction and dream jobs after each tick's commit and ends
with none pending; the same seed on the worker with no memory worker has its engine do each job
before the first prompt that shows what it writes (SHOW_LAG ticks after it was asked) and leaves the
rest queued until a memory worker runs — `voyage_status` says so — and both runs tell the same
story, byte for byte, and remember the same."""
from __future__ import annotations

from memories.job_records import SHOW_LAG
from tests.oracle import assert_same, transcript_through
from voyage.bench.fleet import ScratchDB, Worker, manage, manage_json, wait_for
from world.time import NIGHTFALL

TICKS = "330"  # past nightfall (tick 319): the diary, the night's dreams, and compaction on the way
RUN = ["--scenario", "edelweiss", "--ticks", TICKS, "--seed", "21"]  # the small world: 8 agents


def test_a_foreground_run_does_its_memory_work_and_tells_the_workers_story(tmp_path):
    with ScratchDB("sqlite") as db:
        env = db.env(VOYAGE_CHUNK_TICKS=120)
        foreground = manage_json(env, "run_voyage", *RUN)[-1]
        run_id = foreground["run_id"]
        assert foreground["jobs_pending"] == 0
        assert foreground["summaries"] > 0 and foreground["dreams"] > 0
        assert foreground["diary_entries"] == foreground["alive"]
        living = {a for (a,) in db.query("SELECT id FROM agent_state WHERE run_id = %s AND alive", (run_id,))}
        dreamt = {a for (a,) in db.query("SELECT DISTINCT agent_id FROM memory_dreams WHERE run_id = %s", (run_id,))}
        assert living <= dreamt  # everyone alive slept the night, and dreamt it
        assert db.query("SELECT COUNT(*) FROM memory_summaries WHERE run_id = %s", (run_id,))[0][0] == \
            foreground["summaries"] + foreground["eras"]

        queued = manage_json(env, "start_voyage", *RUN)[0]["run_id"]
        ticks = Worker(env, tmp_path / "ticks.log")
        try:
            wait_for(lambda: db.run_row(queued)[1] == "finished", 240, interval=0.5, what="the run to finish")
        finally:
            ticks.kill()
        [status] = manage_json(env, "voyage_status", "--json", "--run", str(queued))
        assert status["jobs_pending"] > 0
        owed = f"finished; {status['jobs_pending']} memory jobs still running"
        assert status["state_text"] == owed and owed in manage(env, "voyage_status", "--run", str(queued))
        # Owed: the jobs of the ticks since the last prompt's tick (nightfall, 319) - SHOW_LAG, the night's dreams among them.
        assert db.query("SELECT MIN(tick) FROM memory_jobs_pending WHERE run_id = %s", (queued,))[0][0] > NIGHTFALL - SHOW_LAG
        assert db.query("SELECT COUNT(*) FROM memory_jobs_pending WHERE run_id = %s AND job = 'dreams'", (queued,))[0][0]

        memory = Worker(env, tmp_path / "memory.log", cluster="memory")
        try:
            wait_for(lambda: not db.query("SELECT COUNT(*) FROM memory_jobs_pending WHERE run_id = %s", (queued,))[0][0],
                     240, interval=0.5, what="the memory worker to do the run's jobs")
        finally:
            memory.kill()
        [status] = manage_json(env, "voyage_status", "--json", "--run", str(queued))
        assert status["jobs_pending"] == 0
        assert_same(transcript_through(db.query, queued), transcript_through(db.query, run_id))
        assert status["state_text"] == "finished"
        # The uninterrupted worker, its jobs all done after the run: the same memory, by content
        # (by hash: tests/oracle reads memory tables only through this process's ORM).
        assert status["memory_sha256"] == foreground["memory_sha256"]
        assert status["llm_calls"] == foreground["llm_calls"]
        dreamt = {a for (a,) in db.query("SELECT DISTINCT agent_id FROM memory_dreams WHERE run_id = %s", (queued,))}
        assert len(dreamt) == len(living)
        assert db.query("SELECT COUNT(*) FROM memory_summaries WHERE run_id = %s", (queued,))[0][0] > 0
