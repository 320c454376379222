"""The admin's "Draft a world": a paragraph goes to the worker as a draft job (on the broker once its
record has committed, with the draft's own timeout), its page shows the job waiting and then (the
task run by django-q2's worker loop, or called as the worker calls it) the report and file, escaped; an edited
file is checked again as a job of its own and installed only when it passes; a model that gives no
usable answer, a worker that died and a task delivered twice leave a clear page and nothing
installed; a staff user without the right to add scenarios is turned away."""
import html
import re
import socket

import pytest

from django.conf import settings
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from tests.drafting_server import DraftingServer
from tests.runs.test_stored_task_paths import work_off_the_broker
from voyage.drafting.jobs import DRAFT_TASK, draft_task
from voyage.models import DraftJob, ModelProfile
from world.drafting.limits import DraftAsk
from world.models import Scenario

pytestmark = pytest.mark.django_db
URL = "/admin/world/scenario/draft/"
PARAGRAPH = "A small island with a harbour, a chapel and a pub called <b>The Anchor</b>."


def draft(client, **fields):
    return client.post(URL, {"paragraph": PARAGRAPH, "people": 4, "rooms": 5, "profile": "", "repair_rounds": 1,
                             "budget": 1, "draft": "Draft", **fields})


def queued_job(response) -> DraftJob:
    assert response.status_code == 302
    job = DraftJob.objects.get(pk=int(re.search(r"/draft/(\d+)/$", response["Location"]).group(1)))
    assert job.state == DraftJob.QUEUED
    return job


def worked(client, job: DraftJob) -> str:
    """The job's page once the worker has run its task."""
    assert draft_task(job.pk)["outcome"] == "done"
    return client.get(f"{URL}{job.pk}/").content.decode()


def test_a_draft_waits_for_the_worker_then_shows_its_report_and_file_escaped_and_installs_nothing(
        superuser, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        job = queued_job(draft(superuser))
        assert not OrmQ.objects.exists()  # nothing goes to the worker before the job's record has committed
    [task] = [SignedPackage.loads(q.payload) for q in OrmQ.objects.all()]
    assert (task["func"], task["args"], task["timeout"]) == (DRAFT_TASK, (job.pk,), settings.VOYAGE_DRAFT_TIMEOUT)
    waiting = superuser.get(f"{URL}{job.pk}/").content.decode()
    assert "waiting for the worker" in waiting and 'http-equiv="refresh"' in waiting and "draft-report" not in waiting
    [done] = [t for t in work_off_the_broker() if t["func"] == DRAFT_TASK]  # django-q2's own worker loop
    assert done["success"] and done["result"]["outcome"] == "done", done["result"]
    assert draft_task(job.pk)["outcome"] == "skipped"  # the task delivered again drafts nothing more
    page = superuser.get(f"{URL}{job.pk}/").content.decode()
    assert "dry run (one offline day, in a scratch database" in page and '"valid": true' in page.replace("&quot;", '"')
    assert "&lt;b&gt;The Anchor&lt;/b&gt;" in page and "<b>The Anchor</b>" not in page
    assert 'http-equiv="refresh"' not in page and "Check and install" in page
    assert not Scenario.objects.filter(slug__endswith="-draft").exists()


def test_an_edited_draft_is_checked_again_on_the_worker_and_installed_only_when_it_passes(superuser):
    job = queued_job(draft(superuser))
    page = worked(superuser, job)
    text = html.unescape(re.search(r'<textarea name="text"[^>]*>\n?(.*?)</textarea>', page, re.S).group(1))
    hidden = {"paragraph": PARAGRAPH, "people": 4, "rooms": 5, "install": "1"}
    broken = queued_job(superuser.post(f"{URL}{job.pk}/", {**hidden, "text": text.replace("spouse: null",
                                                                                          "spouse: nobody", 1)}))
    page = worked(superuser, broken)
    assert "is married to an unknown persona" in page and "NOT installed" in page and "Check and install" in page
    assert not Scenario.objects.filter(slug__endswith="-draft").exists()
    done = queued_job(superuser.post(f"{URL}{job.pk}/", {**hidden, "text": text.replace("(a scripted draft)",
                                                                                        "(edited)")}))
    page = worked(superuser, done)
    scenario = Scenario.objects.get(slug__endswith="-draft")
    assert f"Scenario '{scenario.slug}' installed" in page and "Check and install" not in page
    assert scenario.name.endswith("(edited)") and scenario.personas.count() == 4
    assert DraftJob.objects.get(pk=done.pk).installed_slug == scenario.slug


def test_a_model_that_gives_no_usable_answer_ends_the_job_with_its_report_and_nothing_installed(superuser):
    before = Scenario.objects.count()
    with DraftingServer(DraftAsk(PARAGRAPH, people=4, rooms=5), mode="broken_json") as server:
        ModelProfile.objects.create(name="author-test", kind=ModelProfile.OPENAI, base_url=server.base_url,
                                    model="drafter", structured_output="json_schema", retries=0, timeout_s=5)
        page = worked(superuser, queued_job(draft(superuser, profile="author-test")))
    assert "FAILED: stage &#x27;premise&#x27;: the answer is not JSON" in page and "Check and install" not in page
    assert Scenario.objects.count() == before


def test_a_worker_that_died_mid_draft_leaves_a_failed_job_and_nothing_installed(superuser):
    job = queued_job(draft(superuser))
    dead = f"{socket.gethostname()[:60]}:4194305"  # above the largest pid Linux hands out: no such process
    DraftJob.objects.filter(pk=job.pk).update(state=DraftJob.DRAFTING, claimed_by=dead, step="the offline day")
    page = superuser.get(f"{URL}{job.pk}/").content.decode()
    assert "This draft failed: the worker stopped while working on this draft" in page
    assert "Nothing was installed" in page and 'http-equiv="refresh"' not in page
    assert draft_task(job.pk)["outcome"] == "skipped"  # the task delivered again does nothing
    assert DraftJob.objects.get(pk=job.pk).state == DraftJob.FAILED


def test_a_bad_ask_is_refused_with_its_reason_and_nothing_is_queued(superuser):
    page = draft(superuser, people=6, rooms=3).content.decode()
    assert "nothing was drafted" in page and "ask for at least 4 rooms" in page and not DraftJob.objects.exists()


def test_staff_without_the_right_to_add_scenarios_is_turned_away(staff):
    assert staff.get(URL).status_code == 403
    job = DraftJob.objects.create(paragraph=PARAGRAPH, people=4, rooms=5)
    assert staff.get(f"{URL}{job.pk}/").status_code == 403
