"""Nothing half-made when the worker dies: a real `manage.py qcluster` checks an edited draft that
asks to be installed; the test SIGKILLs the whole cluster during the draft's offline day. The job
is then marked failed with the reason the moment someone looks (its page, or the next draft), and
no scenario was installed. A real worker on a scratch SQLite file; ~20 s, the only test that kills
a worker in the middle of a draft."""
from __future__ import annotations

import json

from voyage.bench.fleet import ScratchDB, Worker, manage, wait_for

QUEUE_A_CHECK = """
import json
from voyage.drafting.author import Spend, ask_stage, stage_request
from voyage.drafting.jobs import submit_check
from voyage.gateway.offline import OfflineModel
from world.drafting.check import draft_problems
from world.drafting.limits import DraftAsk
from world.drafting.stages import STAGES, assemble
ask = DraftAsk("A mountain hut above the Lotschental with a stove room, a drying room and a bunk loft.", people=5, rooms=6)
answers = {}
for stage in STAGES:
    answers[stage] = ask_stage(OfflineModel(seed=0), stage_request(stage, ask, answers), Spend())
text, problems = draft_problems(assemble(answers), ask)
assert not problems, problems
print(json.dumps({"job": submit_check(text, ask).pk}))
"""


def test_a_worker_killed_during_a_drafts_day_leaves_a_failed_job_and_no_scenario(tmp_path):
    with ScratchDB("sqlite") as db:
        env = db.env()
        job = json.loads(manage(env, "shell", "-c", QUEUE_A_CHECK).strip().splitlines()[-1])["job"]
        scenarios = db.query("SELECT COUNT(*) FROM world_scenario")[0][0]
        worker = Worker(env, tmp_path / "worker.log")
        try:
            wait_for(lambda: db.query("SELECT step FROM voyage_draftjob WHERE id = %s", (job,))[0][0]
                     == "the offline day", 120, interval=0.02, what="the worker to reach the draft's offline day")
        finally:
            worker.kill()
        assert db.query("SELECT state FROM voyage_draftjob WHERE id = %s", (job,)) == [("drafting",)]
        settled = manage(env, "shell", "-c", "from voyage.drafting.jobs import settle_abandoned; "
                                             "print(settle_abandoned())")
        assert settled.strip().splitlines()[-1] == f"[{job}]"
        [(state, error, slug)] = db.query("SELECT state, error, installed_slug FROM voyage_draftjob WHERE id = %s",
                                          (job,))
        assert state == "failed" and "the worker stopped while working on this draft" in error and slug == ""
        assert "nothing was installed" in error
        assert db.query("SELECT COUNT(*) FROM world_scenario")[0][0] == scenarios
        assert db.query("SELECT COUNT(*) FROM world_scenario WHERE slug LIKE %s", ("%-draft",)) == [(0,)]
