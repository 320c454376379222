"""The dashboards' views through Django's test client: a run that has not begun, bad input to the
ship's JSON and to the controls, and who may call them."""
import pytest
from django.contrib.auth.models import User

from voyage.engine.runner import create_run
from voyage.models import Run
from world.models import Scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def fresh_run():
    return create_run(Scenario.objects.get(slug="1912"), seed=1, target_ticks=100, name="not begun")


@pytest.fixture
def staff_client(client):
    client.force_login(User.objects.create_user("page-staff", password="x", is_staff=True))
    return client


def test_a_run_that_has_not_begun_has_a_map_an_empty_feed_and_no_projection_yet(staff_client, fresh_run):
    page = staff_client.get(f"/runs/{fresh_run.pk}/").content.decode()
    assert page.count('class="agent rung-0 asleep"') == 33  # everyone asleep at home
    assert "Day 1, 06:00" in page and "not known before the first daytime tick" in page
    assert page.split('id="feed">')[1].split("</ol>")[0].strip() == ""


def test_the_ship_json_names_what_is_wrong_with_a_tick(staff_client, fresh_run):
    assert staff_client.get(f"/runs/{fresh_run.pk}/ship.json?tick=soon").json() == {
        "error": "tick must be a whole number, not 'soon'"}
    response = staff_client.get(f"/runs/{fresh_run.pk}/ship.json?tick=5")
    assert response.status_code == 400 and response.json()["error"] == \
        f"run {fresh_run.pk} has ticks 0 to 0; there is no tick 5"
    assert staff_client.get("/runs/999999/ship.json").status_code == 404


def test_controls_take_only_posts_of_known_verbs(staff_client, fresh_run):
    assert staff_client.get(f"/runs/{fresh_run.pk}/control/pause/").status_code == 405
    assert staff_client.post(f"/runs/{fresh_run.pk}/control/explode/").status_code == 404
    response = staff_client.post(f"/runs/{fresh_run.pk}/control/pause/", {"next": "https://evil.example/"})
    assert response.status_code == 302 and response.url == "/"  # never sent off the site
    assert Run.objects.get(pk=fresh_run.pk).state == Run.PAUSED


def test_pages_and_the_ship_json_are_for_staff_only(client, fresh_run):
    paths = ["/", "/runs.json", f"/runs/{fresh_run.pk}/", f"/runs/{fresh_run.pk}/ship.json"]
    for path in paths:
        response = client.get(path)
        assert response.status_code == 302 and response.url.startswith("/accounts/login/?next=")
    assert client.post(f"/runs/{fresh_run.pk}/control/stop/").status_code == 302
    client.force_login(User.objects.create_user("page-visitor", password="x"))
    for path in paths:
        assert client.get(path).status_code == 403
    assert client.post(f"/runs/{fresh_run.pk}/control/stop/").status_code == 403
    assert Run.objects.get(pk=fresh_run.pk).state == Run.QUEUED


def test_the_runs_json_says_what_the_list_shows(staff_client, fresh_run):
    [row] = [r for r in staff_client.get("/runs.json").json()["runs"] if r["id"] == fresh_run.pk]
    assert row == {"id": fresh_run.pk, "state": "queued", "clock": "Day 1, 06:00", "ticks": "0/100",
                   "progress_pct": 0, "calls": "0", "tokens": "0", "cost": "0.0000", "problem": ""}
