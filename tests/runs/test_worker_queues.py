"""Background jobs never delay ticks: compaction and dream jobs go to the "memory" queue, which the
tick worker never takes from; a `qcluster` named memory works them off on its own."""
from __future__ import annotations

from voyage.bench.fleet import ScratchDB, Worker, manage, manage_json, wait_for

BURST = """
from django_q.tasks import async_task
for _ in range(4):
    async_task("time.sleep", 1, cluster="memory")
"""


def test_a_burst_of_memory_jobs_does_not_hold_up_the_tick_chain(tmp_path):
    with ScratchDB("sqlite") as db:
        env = db.env(VOYAGE_CHUNK_TICKS=20)
        manage(env, "shell", "-c", BURST)  # 4 s of work queued before the run: it must not wait for it
        run_id = manage_json(env, "start_voyage", "--ticks", "60")[0]["run_id"]
        ticks = Worker(env, tmp_path / "ticks.log")
        try:
            wait_for(lambda: db.run_row(run_id)[1] == "finished", 60, what="the run to finish")
            # the burst, and the compaction/dream jobs the run itself queued, all still wait
            memory_jobs = db.query("SELECT COUNT(*) FROM django_q_ormq WHERE key = 'memory'")[0][0]
            done_elsewhere = db.query("SELECT COUNT(*) FROM django_q_task WHERE func <> 'voyage.runs.tasks.run_chunk'")[0][0]
            assert memory_jobs > 4 and done_elsewhere == 0, "the tick worker must leave the memory queue alone"
            memory = Worker(env, tmp_path / "memory.log", cluster="memory")
            try:
                wait_for(lambda: db.query("SELECT COUNT(*) FROM django_q_task WHERE func = 'time.sleep' "
                                          "AND success")[0][0] == 4, 60, what="the memory cluster")
                wait_for(lambda: db.query("SELECT COUNT(*) FROM django_q_ormq WHERE key = 'memory'")[0][0] == 0,
                         90, what="the memory queue to drain")
            finally:
                memory.kill()
        finally:
            ticks.kill()
        jobs = db.query("SELECT COUNT(*) FROM django_q_task WHERE func LIKE 'memories.jobs.%' AND success")[0][0]
        assert jobs > 0, "the run's own compaction and dream jobs ran on the memory cluster"
