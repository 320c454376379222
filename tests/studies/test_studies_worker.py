"""Studies on real worker processes (`manage.py qcluster`, tick and memory clusters) over a scratch
SQLite database, driven by the `study` command as a user would."""
import csv
import json
import time

import pytest

from voyage.bench.fake_openai_server import FakeOpenAI
from voyage.bench.fleet import ScratchDB, Worker, manage, wait_for

TICKS = 500  # past the first night: two days, so two rows per run
GRID = ["--scenario", "edelweiss", "--ticks", str(TICKS), "--vary", "seed=1,2", "--vary", "hot_memory_limit=30,50"]
AGENTS = 8  # the Sanatorium Edelweiss, the small second scenario
# Compared day by day: everything the event log and the trust ledger decide. Compared per run: the
# dreams and diary entries (one per sleep, one per nightfall), which the memory cluster may write a
# day later than the foreground does. Not compared: ids, wall time; tokens (a prompt's size depends on
# whether the agent's summaries had arrived yet); and the compactions (summaries, eras, and the calls
# that write them), which on the worker run when the memory cluster gets to them and so may fold more
# or fewer rows than the foreground's, which run at once.
NOT_MEASURES = ("study", "run_id", "run_state", "wall_s", "tokens", "calls", "written_summaries", "written_eras")
PER_RUN = ("written_dreams", "written_diary_entries")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    logs = tmp_path_factory.mktemp("studies-worker")
    with ScratchDB("sqlite") as db:
        env = db.env(VOYAGE_CHUNK_TICKS=50)  # several chunks per run: the chain, not one task, runs it
        workers = [Worker(env, logs / "ticks.log"), Worker(env, logs / "memory.log", cluster="memory")]
        try:
            for w in workers:
                wait_for(lambda: " running." in w.log(), 60, what="a worker to start")
            yield db, env
        finally:
            for w in workers:
                w.kill()


def study_state(db, name):
    return db.query("SELECT state, stop_reason FROM studies_study WHERE name = %s", (name,))[0]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_a_study_runs_on_the_worker_and_its_measures_repeat(fleet, tmp_path):
    db, env = fleet
    made = json.loads(manage(env, "study", "create", "--name", "A", *GRID, "--parallel", "2"))
    assert made["runs"] == 4 and len(made["started"]) == 2
    # Without the per-minute catch-up, only the worker's own signal can start runs 3 and 4.
    manage(env, "shell", "-c", "from django_q.models import Schedule; "
                               "Schedule.objects.filter(name__startswith='studies:').delete()")
    wait_for(lambda: study_state(db, "A")[0] == "finished", 300, interval=0.5, what="study A to finish")
    status = json.loads(manage(env, "study", "status", "A", "--json"))
    assert [(r["tick"], r["state"]) for r in status["runs"]] == [(TICKS, "finished")] * 4
    # the memory cluster has written every summary and dream the runs asked for
    wait_for(lambda: db.query("SELECT COUNT(*) FROM django_q_ormq")[0][0] == 0, 120, interval=0.5,
             what="the memory jobs")
    manage(env, "study", "results", "A", "-o", str(tmp_path / "a.csv"))
    on_worker = read_csv(tmp_path / "a.csv")

    # one row per run and day; the axes, the seed, the day and every measure are columns
    assert sorted((r["run_id"], r["day"]) for r in on_worker) == sorted(
        (str(r["run_id"]), day) for r in status["runs"] for day in ("1", "2"))
    header = list(on_worker[0])
    assert header[:6] == ["study", "run_id", "run_state", "hot_memory_limit", "seed", "day"]
    for column in ("agents_rung_0", "agents_rung_1", "first_tick_rung_1", "deaths", "action_fail_rate",
                   "words_whisper", "words_normal", "words_shout", "speech_target_only_share", "trust_mean",
                   "trust_suspect_share", "trust_polarisation", "written_summaries", "written_dreams", "calls",
                   "tokens", "cost", "retries", "wall_s"):
        assert column in header
    assert sorted((r["hot_memory_limit"], r["seed"], r["day"]) for r in on_worker) == [
        (h, s, d) for h in ("30", "50") for s in ("1", "2") for d in ("1", "2")]
    assert all(int(r["calls"]) > 0 and float(r["wall_s"]) > 0 for r in on_worker)
    assert all(int(r["agents_rung_0"]) + int(r["agents_rung_1"]) + int(r["agents_rung_2"]) == AGENTS for r in on_worker)

    # the same grid again, in the foreground on a fresh database: the same seed and parameter, the same
    # measures. (A fresh database: a run's transcript can still depend on other runs already in the
    # database, an engine matter reported separately.)
    with ScratchDB("sqlite") as fresh:
        manage(fresh.env(), "study", "create", "--name", "B", *GRID, "--no-start")
        manage(fresh.env(), "study", "run", "B")
        manage(fresh.env(), "study", "results", "B", "-o", str(tmp_path / "b.csv"))
    again = read_csv(tmp_path / "b.csv")

    def measures(rows):
        return {(r["hot_memory_limit"], r["seed"], r["day"]): {k: v for k, v in r.items()
                                                              if k not in NOT_MEASURES + PER_RUN}
                for r in rows}

    def run_totals(rows):
        totals = {}
        for r in rows:
            run = totals.setdefault((r["hot_memory_limit"], r["seed"]), dict.fromkeys(PER_RUN, 0))
            for k in PER_RUN:
                run[k] += int(r[k])
        return totals

    first, second = measures(on_worker), measures(again)
    differ = {cell: {k: (v, second[cell][k]) for k, v in row.items() if second[cell][k] != v}
              for cell, row in first.items()}
    assert not any(differ.values()), differ
    assert run_totals(again) == run_totals(on_worker)
    seeds_differ = measures(on_worker)[("30", "1", "1")] != measures(on_worker)[("30", "2", "1")]
    assert seeds_differ, "two seeds gave identical measures: the seed axis did not reach the runs"


def test_a_study_whose_first_run_exceeds_its_budget_starts_no_further_run(fleet):
    db, env = fleet
    with FakeOpenAI() as server:
        manage(env, "shell", "-c", "from voyage.models import ModelProfile; ModelProfile.objects.create("
               f"name='priced', kind='openai', base_url={server.base_url!r}, model='fake', timeout_s=5, "
               "retries=1, price_in_per_m=1000, price_out_per_m=1000)")
        made = json.loads(manage(env, "study", "create", "--name", "priced", "--scenario", "edelweiss", "--ticks", "4", "--vary", "seeds=3",
                                 "--vary", "profile=priced", "--schedule", "simultaneous", "--budget-cost", "0.5"))
        assert len(made["started"]) == 1  # under a budget, one run at a time
        wait_for(lambda: study_state(db, "priced")[0] == "stopped", 120, interval=0.25, what="the budget stop")
        time.sleep(1.5)  # long enough for a wrongly started run to show
    state, reason = study_state(db, "priced")
    assert reason.startswith("cost budget reached: ") and reason.endswith("of 0.5000 spent; 2 run(s) not started")
    runs = db.query("SELECT r.tick, r.state, r.pause_reason FROM voyage_run r JOIN studies_studyrun m "
                    "ON m.run_id = r.id JOIN studies_study s ON m.study_id = s.id WHERE s.name = 'priced' "
                    "ORDER BY m.position")
    assert runs[0][:2] == (4, "finished")
    for tick, run_state, why in runs[1:]:
        assert (tick, run_state) == (0, "paused") and why.startswith("not started: cost budget reached")
    assert db.query("SELECT COUNT(*) FROM llm_calls c JOIN studies_studyrun m ON m.run_id = c.run_id "
                    "WHERE m.position > 0 AND m.study_id = (SELECT id FROM studies_study WHERE name = 'priced')"
                    ) == [(0,)]
    shown = manage(env, "study", "status", "priced")
    assert "stopped: cost budget reached" in shown and "not started: cost budget reached" in shown


def test_intervention_arms_fork_from_one_base_run_on_the_worker(fleet):
    """The base runs on the worker to the fork tick; then each arm replays it in the worker's chunks
    (VOYAGE_CHUNK_TICKS=50: several of them) and goes on live: equal to the base before the fork tick,
    the intervention arm apart after it."""
    db, env = fleet
    fork, ticks = 120, 200
    lamp = ('lamp={"kind": "object_place", "tick": 120, "name": "Brass lamp", "room": "east_corridor", '
            '"text": "It hums."}')
    made = json.loads(manage(env, "study", "create", "--name", "forks", "--scenario", "edelweiss", "--ticks",
                             str(ticks), "--vary", "intervention=none,lamp", "--intervention", lamp, "--parallel", "1"))
    assert made["runs"] == 3 and len(made["started"]) == 1  # the base alone: the arms wait for it
    wait_for(lambda: study_state(db, "forks")[0] == "finished", 240, interval=0.5, what="study forks to finish")
    members = db.query("SELECT m.is_base, m.cell, r.id, r.tick, r.state, r.forked_from_id, r.fork_tick, "
                       "r.replay_of_id FROM studies_studyrun m JOIN voyage_run r ON m.run_id = r.id "
                       "JOIN studies_study s ON m.study_id = s.id WHERE s.name = 'forks' ORDER BY m.position")
    [base] = [m for m in members if m[0]]
    assert base[3:5] == (fork, "finished")
    arms = {json.loads(m[1])["intervention"]: m for m in members if not m[0]}
    assert {k: m[3:] for k, m in arms.items()} == {k: (ticks, "finished", base[2], fork, None) for k in ("none", "lamp")}

    def events(run_id, where):
        return db.query("SELECT e.seq, e.tick, e.kind, a.persona_id, e.room_id, e.text, e.data FROM event_log e "
                        "LEFT JOIN agent_state a ON e.actor_id = a.id "
                        f"WHERE e.run_id = %s AND {where} ORDER BY e.seq", (run_id,))

    before = events(base[2], "e.tick < 120")
    assert before and all(events(arm[2], "e.tick < 120") == before for arm in arms.values())
    after = {k: [e[1:] for e in events(m[2], "e.tick > 120")] for k, m in arms.items()}
    assert after["none"] != after["lamp"] and any("Brass lamp" in e[4] for e in after["lamp"])
    assert [e[2] for e in events(arms["lamp"][2], "e.tick = 120") if e[2] == "intervention"] == ["intervention"]
    # the replayed ticks cost nothing again: the base paid for them once
    rows = manage(env, "study", "results", "forks")
    assert rows.splitlines()[0].startswith("study,run_id,run_state,intervention,seed,day") and len(rows.splitlines()) == 3
