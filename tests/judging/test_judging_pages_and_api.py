"""The believability panel (run overview, agent inspector) and the API: a day judged from the page or
through the API, its scores shown with the judge's verdict beside them, model text escaped."""
from __future__ import annotations

import pytest

from tests.api_helpers import staff_with_token
from voyage.instruments.models import Judging

pytestmark = pytest.mark.django_db


def test_a_day_judged_from_the_overview_shows_scores_beside_the_verdict(staff, judged_run):
    assert "Not judged yet." in staff.get(f"/runs/{judged_run.pk}/").content.decode()
    response = staff.post(f"/runs/{judged_run.pk}/judging/", {"day": "1"})
    assert response.status_code == 302 and response["Location"].endswith("#believability")
    page = staff.get(f"/runs/{judged_run.pk}/").content.decode()
    job = Judging.objects.filter(run=judged_run).first()
    assert job.verdict == "reliable" and job.scripted and len(job.scores) == 33 * 8
    assert 'class="verdict">reliable<' in page and "scripted, not a language model" in page
    assert 'data-agent="harold_ashcombe"' in page and "persona_adherence" in page
    inspector = staff.get(f"/runs/{judged_run.pk}/agents/harold_ashcombe/").content.decode()
    assert 'class="verdict">reliable<' in inspector and 'data-agent="harold_ashcombe"' in inspector
    assert 'data-agent="bridget_keane"' not in inspector  # the inspector shows its own agent's row


def test_a_bad_day_is_refused_with_why(staff, judged_run):
    staff.post(f"/runs/{judged_run.pk}/judging/", {"day": "9"})
    page = staff.get(f"/runs/{judged_run.pk}/").content.decode()
    assert "Not judged: day 9: run" in page


def test_model_text_is_shown_escaped(staff, judged_run):
    Judging.objects.create(run=judged_run, day=1, rubric="default", judge="evil", verdict="unreliable",
                           summary={"verdict_reasons": ["order_flip_share 1.0 > 0.3"], "missing": 0},
                           scores=[{"agent": "harold_ashcombe", "dimension": "world_voice", "score": 2,
                                    "reason": "<script>alert(1)</script>", "cites": ["m1"], "missing": ""}])
    page = staff.get(f"/runs/{judged_run.pk}/").content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'class="verdict">unreliable<' in page and "order_flip_share 1.0 &gt; 0.3" in page


def test_the_api_judges_and_lists_with_the_verdict(client, judged_run):
    _, token = staff_with_token()
    made = client.post(f"/api/runs/{judged_run.pk}/judging", {"day": 1}, content_type="application/json",
                       HTTP_X_API_KEY=token)
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["verdict"] == "reliable" and body["scripted"] and body["checks"]["repeat_alpha"] == 1.0
    assert {s["dimension"] for s in body["scores"]} >= {"world_voice", "ladder_discipline"}
    listed = client.get(f"/api/runs/{judged_run.pk}/judging", HTTP_X_API_KEY=token).json()
    assert listed[0]["id"] == body["id"]
    bad = client.post(f"/api/runs/{judged_run.pk}/judging", {"day": 9}, content_type="application/json",
                      HTTP_X_API_KEY=token)
    assert bad.status_code == 422 and "day 9" in bad.json()["detail"][0]["msg"]
    assert client.get(f"/api/runs/{judged_run.pk}/judging").status_code == 401


def test_the_api_judges_scenes_and_refuses_a_bad_count_naming_it(client, judged_run):
    _, token = staff_with_token()
    made = client.post(f"/api/runs/{judged_run.pk}/judging", {"day": 1, "scenes": 2},
                       content_type="application/json", HTTP_X_API_KEY=token)
    assert made.status_code == 201, made.content
    body = made.json()
    keys = body["checks"]["options"]["scenes"]
    assert len(keys) == 2 and all(k.startswith("scene:") and "@" in k for k in keys)
    rows = [s for s in body["scores"] if s["agent"].startswith("scene:")]
    assert {s["agent"] for s in rows} == set(keys)
    assert {s["dimension"] for s in rows} == set(body["checks"]["options"]["scene_dimensions"]) \
        == {"social_plausibility", "world_voice", "non_repetition"}
    for scenes in (-1, 21, "2"):
        bad = client.post(f"/api/runs/{judged_run.pk}/judging", {"day": 1, "scenes": scenes},
                          content_type="application/json", HTTP_X_API_KEY=token)
        assert bad.status_code == 422 and "scenes" in bad.json()["detail"][0]["loc"], bad.content


def test_the_form_judges_scenes_and_refuses_a_bad_count(staff, judged_run):
    staff.post(f"/runs/{judged_run.pk}/judging/", {"day": "1", "scenes": "many"})
    assert "Not judged: scenes: a count from 0 to 20, not &#x27;many&#x27;" in \
        staff.get(f"/runs/{judged_run.pk}/").content.decode()
    staff.post(f"/runs/{judged_run.pk}/judging/", {"day": "1", "scenes": "21"})
    assert "Not judged: scenes: a count from 0 to 20, not 21" in staff.get(f"/runs/{judged_run.pk}/").content.decode()
    staff.post(f"/runs/{judged_run.pk}/judging/", {"day": "1", "scenes": "1"})
    job = Judging.objects.filter(run=judged_run).first()
    (key,) = job.summary["options"]["scenes"]
    page = staff.get(f"/runs/{judged_run.pk}/").content.decode()
    assert f'data-agent="{key}"' in page and 'name="scenes" min="0" max="20" value="1"' in page
