"""The run's validity page and its API (issue 40): staff ask a standard instrument from the page and
read each domain's figures beside people's, the persona table and the distances to people; the API
gives the same report; an unknown instrument is refused by name; the page is staff-only."""
from __future__ import annotations

import re

import pytest
from django.template.defaultfilters import floatformat
from django.test import Client

from tests.engine_helpers import new_run
from tests.memory_helpers import jobs_inline
from voyage.engine.runner import advance
from voyage.instruments.models import ValidityReport
from voyage.models import Run

pytestmark = pytest.mark.django_db


@pytest.fixture
def run():
    with jobs_inline():
        made = new_run(seed=12, target_ticks=12)
        advance(made, 12, memory_inline=True)
    Run.objects.filter(pk=made.pk).update(state=Run.FINISHED)
    made.refresh_from_db()
    return made


def test_staff_ask_the_ipip_and_the_gss_from_the_page_and_read_them_beside_people(staff, run):
    assert Client().get(f"/runs/{run.pk}/validity/").status_code in (302, 403)  # staff only
    page = staff.get(f"/runs/{run.pk}/").content.decode()
    assert f'href="/runs/{run.pk}/validity/"' in page
    response = staff.post(f"/runs/{run.pk}/validity/new/", {"instrument": "ipip-neo-120", "tick": "6",
                                                             "retest_tick": "12", "page_size": "40"})
    assert response.status_code == 302
    saved = ValidityReport.objects.get(run=run)
    html = staff.get(response["Location"]).content.decode()
    assert "IPIP-NEO-120 at tick 6, retest at tick 12" in html and "not a language model" in html
    row = re.search(r'<tr data-domain="N">(.*?)</tr>', html, re.S).group(1)
    alpha = saved.report["domains"]["N"]["alpha"]
    shown = [floatformat(v, 3) for v in (alpha["value"], *alpha["interval"])]  # as the page rounds (half up)
    assert f"{shown[0]} <span class=\"ci\">[{shown[1]}, {shown[2]}]</span>" in row
    assert "0.84" in row and "Johnson (2014)" in html
    assert 'class="mtmm"' in html
    gss = staff.post(f"/runs/{run.pk}/validity/new/", {"instrument": "gss-trust", "tick": "12"})
    html = staff.get(gss["Location"]).content.decode()
    assert 'data-item="trust"' in html and "only the share answering" in html and "<svg class=\"shares\"" in html
    bad = staff.post(f"/runs/{run.pk}/validity/new/", {"instrument": "<b>mmpi</b>", "tick": "12"}, follow=True)
    text = bad.content.decode()
    assert "no instrument &#x27;&lt;b&gt;mmpi&lt;/b&gt;&#x27;" in text and "<b>mmpi</b>" not in text


def test_the_api_asks_and_lists_reports(staff, run):
    made = staff.post(f"/api/runs/{run.pk}/validity", {"instrument": "gss-trust", "tick": 12, "year": 1972},
                      content_type="application/json")
    assert made.status_code == 201, made.content
    body = made.json()
    refs = {r["item"]: r for r in body["report"]["references"]}
    assert refs["fair"]["people_shares"] == [0.6, 0.4] and body["instrument"] == "gss-trust"
    listed = staff.get(f"/api/runs/{run.pk}/validity").json()
    assert [r["id"] for r in listed] == [body["id"]]
    refused = staff.post(f"/api/runs/{run.pk}/validity", {"instrument": "mmpi"}, content_type="application/json")
    assert refused.status_code == 422 and "no instrument 'mmpi'" in refused.content.decode()
