"""The study's report, page and file: its design, every column of the results with the arms side by
side, each arm against the baseline (the numbers `study compare` gives), the networks; the file is
self-contained; a measure added to the registry is in it with no more work."""
import io
import re

import pytest
from django.core.management import call_command

from voyage.studies import measures
from statsmodels.stats.multitest import multipletests

from voyage.studies.adjust import with_adjusted
from voyage.studies.between import all_comparisons, study_comparisons
from voyage.studies.models import Study
from voyage.studies.results import study_rows

pytestmark = pytest.mark.django_db
LAMP = ('lamp={"kind": "object_place", "tick": 4, "name": "Brass lamp", "room": "east_corridor", '
        '"text": "<b>It hums.</b>"}')


@pytest.fixture
def study():
    call_command("study", "create", "--name", "lamp <i>report</i>", "--scenario", "edelweiss", "--ticks", "10",
                 "--vary", "intervention=none,lamp", "--vary", "seeds=2", "--intervention", LAMP, "--no-start",
                 stdout=io.StringIO())
    call_command("study", "run", "lamp <i>report</i>", stdout=io.StringIO(), stderr=io.StringIO())
    return Study.objects.get(name="lamp <i>report</i>")


def rows_of(html):
    return dict(re.findall(r'<tr class="measure[^"]*" data-measure="([^"]+)">(.*?)</tr>', html, re.S))


def test_the_report_page_has_the_design_every_measure_and_the_comparisons(staff, study):
    html = staff.get(f"/studies/{study.pk}/report/").content.decode()
    assert "lamp &lt;i&gt;report&lt;/i&gt;: report" in html and "<i>report</i>" not in html
    assert "&lt;b&gt;It hums.&lt;/b&gt;" in html and "forked from 2 base run(s) at tick 4" in html
    assert re.search(r"Varies: seed</th><td>1, 2</td>", html)
    header, _ = study_rows(study)
    rows = rows_of(html)
    assert list(rows) == header[header.index("day") + 1:]  # every column, in the table's order
    for column in ("calls", "trust_mean", "speech_net_density"):
        [c] = study_comparisons(study, column)
        cells = rows[column]
        assert cells.count("n=2") == 2  # both arms, two runs each
        if c.p_value is not None:
            assert f"p={c.p_value:.4f}" in cells and f"[{c.ci_low:.4f}, {c.ci_high:.4f}]" in cells
    assert 'class="measure network"' in html
    # p adjusted for every comparison in the table (Holm), stated, and the forest plot draws the table's numbers
    everything = with_adjusted(all_comparisons(study))
    having = [c for c in everything if c.p_value is not None]
    assert f"With {len(having)} comparisons in this table" in html and "Holm (family-wise error rate)" in html
    assert [c.p_adjusted for c in having] == pytest.approx(list(multipletests([c.p_value for c in having],
                                                                            method="holm")[1]))
    for c in having[:5]:
        assert f"p adj={c.p_adjusted:.4f}" in rows[c.measure]
    drawn = re.findall(r'<g class="forest-row" data-measure="([^"]+)" data-arm="[^"]+" data-diff="([^"]+)" '
                       r'data-low="([^"]+)" data-high="([^"]+)"', html)
    table = {c.measure: (c.diff, c.ci_low, c.ci_high) for c in everything if c.ci_low is not None}
    assert drawn and {m: tuple(map(float, v)) for m, *v in drawn} == table
    assert html.index('class="forest-plot"') < html.index('<table class="report measures">')
    assert html.count('<figure class="arm-graph"') == 2 and html.count('<svg class="speech-graph"') == 2


def test_the_downloaded_report_is_one_self_contained_file_with_the_same_numbers(staff, study):
    page = staff.get(f"/studies/{study.pk}/report/").content.decode()
    response = staff.get(f"/studies/{study.pk}/report.html")
    assert response["Content-Disposition"] == f'attachment; filename="study-{study.pk}-report.html"'
    html = response.content.decode()
    assert html.startswith("<!doctype html>") and "<style>" in html
    for outside in ("<script", "<link", "src=", "href=", "url(", "@import"):
        assert outside not in html, outside
    # the SVGs' namespace only: the two arms' speech graphs and the forest plot
    assert re.findall(r"https?://[^\"' ]+", html) == ["http://www.w3.org/2000/svg"] * 3
    assert rows_of(html) == rows_of(page)


def test_a_measure_added_to_the_registry_is_in_the_report(staff, study, monkeypatch):
    """As a survey's items will be: declared as ordinary measures, nothing else changed."""
    monkeypatch.setitem(measures.REGISTRY, "survey_safe_mean", measures.Measure(
        "survey_safe_mean", lambda t, run, day: float(run.id % 3 + 1), "a 1-7 scale item's mean", scale=True))
    html = staff.get(f"/studies/{study.pk}/report/").content.decode()
    assert "survey_safe_mean" in rows_of(html)
    assert 'title="a 1-7 scale item&#x27;s mean"' in html
    assert "δ=" in rows_of(html)["survey_safe_mean"] and "d=" not in rows_of(html)["survey_safe_mean"]  # a scale


def test_a_survey_items_answers_are_spread_per_arm_as_counted_by_hand():
    from voyage.instruments.questionnaire import Item
    from voyage.studies.report_surveys import columns_of, spread

    scale = Item("safe", "Safe?", "scale", low=1, high=5)
    s = spread(scale, "a", [1, 2, 2, 5, None])
    assert columns_of(scale) == ["1", "2", "3", "4", "5"]
    assert (s.asked, s.shares, s.mean, s.low, s.high, s.missing) == (5, [0.25, 0.5, 0.0, 0.0, 0.25], 2.5, 1, 5, 0.2)
    several = Item("w", "Worries?", "choices", options=("sea", "others"))
    assert spread(several, "a", [["sea"], ["sea", "others"], []]).shares == [0.6667, 0.3333]
    one = Item("l", "Leader?", "choice", options=("nobody", "an officer"))
    assert spread(one, "a", ["nobody", None]).shares == [1.0, 0.0]
    assert spread(one, "a", [None, None]).shares == [None, None]
    number = Item("h", "Hours?", "number", low=0, high=100)
    assert (spread(number, "a", [3, 4.5]).mean, spread(number, "a", [3, 4.5]).shares) == (3.75, [])
