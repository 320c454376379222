"""The studies pages through Django's test client: who may see them, what they show, escaped."""
import io
import json

import pytest
from django.contrib.auth.models import User

from voyage.studies.chart import line_chart
from voyage.studies.compare import stat, table
from voyage.studies.config import StudyPlan, create_study
from voyage.studies.foreground import run_study
from voyage.studies.results import csv_text

pytestmark = pytest.mark.django_db
HOSTILE = '<script>document.title="pwned"</script>'


@pytest.fixture
def study():
    made = create_study(StudyPlan(name=f"hot {HOSTILE}", scenario="1912", target_ticks=4,
                                  axes={"hot_memory_limit": ["30", "50"], "seed": ["1", "2"]}))
    run_study(made, io.StringIO())
    made.refresh_from_db()
    return made


def test_anonymous_visitors_log_in_and_others_are_refused(client, study):
    assert client.get("/studies/").status_code == 302
    assert client.get(f"/studies/{study.pk}/progress.json")["Location"].startswith("/accounts/login/")
    client.force_login(User.objects.create_user("guest", password="x"))
    assert client.get(f"/studies/{study.pk}/").status_code == 403
    assert client.get(f"/studies/{study.pk}/results.csv").status_code == 403


def test_the_list_and_the_comparison_page_escape_the_studys_name(staff, study):
    for url in ("/studies/", f"/studies/{study.pk}/"):
        html = staff.get(url).content.decode()
        assert HOSTILE not in html and "&lt;script&gt;" in html


def test_the_comparison_page_shows_runs_cells_measures_and_a_chart(staff, study):
    html = staff.get(f"/studies/{study.pk}/?measure=calls").content.decode()
    runs = list(study.members.values_list("run_id", flat=True))
    for run_id in runs:
        assert f'href="/runs/{run_id}/"' in html
    assert html.count('<th class="cell">hot_memory_limit=30</th>') == 1
    assert html.count('<th class="cell">hot_memory_limit=50</th>') == 1
    assert '<svg class="study-chart"' in html and "calls by day" in html
    assert "<option selected>calls</option>" in html


def test_a_bad_choice_in_the_query_string_falls_back(staff, study):
    html = staff.get(f"/studies/{study.pk}/?measure=<b>&day=99").content.decode()
    assert "<b>" not in html and "agents_rung_1 by day" in html


def test_progress_json_and_the_csv(staff, study):
    progress = json.loads(staff.get(f"/studies/{study.pk}/progress.json").content)
    assert progress["study"]["state"] == "finished"
    assert [(r["tick"], r["state"]) for r in progress["runs"]] == [(4, "finished")] * 4
    response = staff.get(f"/studies/{study.pk}/results.csv")
    assert response["Content-Type"].startswith("text/csv")
    assert response.content.decode() == csv_text(study)


def test_spread_over_seeds():
    assert str(stat(["1", "3"])) == "2 ± 1.414"
    assert str(stat(["12000000", "12020000"])) == "12,010,000 ± 14,142"
    assert str(stat(["2"])) == "2" and str(stat(["", None])) == "—"
    rows = [{"a": "x", "seed": "1", "day": "1", "m": "1"}, {"a": "x", "seed": "2", "day": "1", "m": "3"},
            {"a": "y", "seed": "1", "day": "1", "m": "5"}]
    got = table(rows, ["a", "seed"], ["m"], 1)["m"]
    assert (got["a=x"].mean, got["a=x"].n, got["a=y"].mean, got["a=y"].sd) == (2.0, 2, 5.0, None)


def test_the_chart_escapes_its_labels_and_draws_each_cell():
    svg = line_chart({HOSTILE: [(1, 1.0), (2, 3.0)], "b": [(1, 2.0)]}, "deaths")
    assert HOSTILE not in svg and "&lt;script&gt;" in svg
    assert svg.count("<polyline") == 1 and svg.count("<circle") == 3
    assert "no values yet" in line_chart({"a": []}, "deaths")
