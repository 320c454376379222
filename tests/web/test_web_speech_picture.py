"""The speech graph on the pictures page and the inspector's strongest ties, on a small hand-built
event log (a run of three agents) and on hand-built graphs: what is drawn, grouped and escaped."""
import re

import pytest

from memories.models import TrustEntry
from voyage.engine.runner import create_run
from voyage.models import Event, Run
from voyage.studies.networks import speech_graph
from voyage.web.charts import RUNG_COLOURS
from voyage.web.speech_picture import speech_svg
from world.models import Scenario

HOSTILE = '<img src=x onerror="alert(1)">'


def test_the_svg_draws_every_person_and_tie_groups_communities_and_escapes_names():
    pairs = {(a, b): 1 for a, b in [("a", "b"), ("b", "c"), ("c", "a"), ("d", "e"), ("e", "f"), ("f", "d")]}
    g = speech_graph("abcdefz", {**pairs, **{(b, a): 2 for a, b in pairs}})
    svg = speech_svg(g, {"a": HOSTILE}, {"a": 2}, ["Panic", "Self", "Names <b>"], 3, RUNG_COLOURS)
    assert HOSTILE not in svg and "&lt;img src=x" in svg and "Names &lt;b&gt;" in svg
    assert svg.count('<circle class="node"') == 7 and svg.count('<line class="tie"') == 12
    groups = dict(re.findall(r'data-agent="(\w)" data-group="(\d)"', svg))
    assert groups["a"] == groups["b"] == groups["c"] != groups["d"] == groups["e"] == groups["f"]
    assert groups["z"] == "3" and "z, rung 0 (Panic), no ties" in svg  # the one with no tie, apart
    assert f'fill="{RUNG_COLOURS[2]}"' in re.search(r'<circle[^>]*data-agent="a"[^>]*>', svg).group(0)
    assert "Who heard whom on day 3" in svg and "http" not in svg.replace("http://www.w3.org/2000/svg", "")


@pytest.fixture
def talk(db):
    scenario = Scenario.objects.get(slug="1912")
    run = create_run(scenario, personas=list(scenario.personas.order_by("key")[:3]), target_ticks=960)
    a, b, c = run.agents.order_by("persona__key").select_related("persona")
    ka, kb, kc = (x.persona.key for x in (a, b, c))
    seq = iter(range(1, 100))

    def say(tick, speaker, delivered):
        Event.objects.create(run=run, tick=tick, seq=next(seq), kind="communicate", actor=speaker, text="words",
                             data={"volume": "normal", "target": None, "delivered": delivered})

    say(5, a, {kb: "HEARD", kc: "OBSERVED"})  # c saw talk but heard no words: no tie
    say(6, a, {kb: "HEARD"})
    say(7, b, {ka: "HEARD"})
    say(500, c, {ka: "HEARD", kb: "HEARD"})  # day 2
    Event.objects.create(run=run, tick=9, seq=next(seq), kind="rung", actor=b, data={"rung": 1})
    TrustEntry.objects.create(run=run, agent=a, other=b, score=0.5, label="ally", first_met_tick=5, updated_tick=5)
    Run.objects.filter(pk=run.pk).update(tick=960)
    return run, (a, b, c)


def test_the_pictures_page_draws_the_chosen_days_speech_graph(staff, talk):
    run, (a, b, c) = talk
    html = staff.get(f"/runs/{run.pk}/charts/?day=1").content.decode()
    svg = html[html.index('<svg class="speech-graph"'):]
    svg = svg[:svg.index("</svg>")]
    assert svg.count('<circle class="node"') == 3 and svg.count('<line class="tie"') == 2  # a->b, b->a
    assert f"{a.persona.display_name} → {b.persona.display_name}: 2 utterance(s) heard" in svg
    assert f'{c.persona.display_name}, rung 0' in svg and ", no ties" in svg
    assert f"{b.persona.display_name}, rung 1" in svg
    day2 = staff.get(f"/runs/{run.pk}/charts/?day=2").content.decode()
    assert "Who heard whom on day 2" in day2 and day2.count('<line class="tie"') == 2  # c->a, c->b
    assert "Who heard whom on day 2" in staff.get(f"/runs/{run.pk}/charts/").content.decode()  # the last day
    assert staff.get(f"/runs/{run.pk}/charts/?day=x").status_code == 400


def test_the_inspector_lists_the_strongest_ties(staff, talk):
    run, (a, b, c) = talk
    html = staff.get(f"/runs/{run.pk}/agents/{a.persona.key}/").content.decode()
    section = html[html.index('<section id="ties">'):html.index("</section>", html.index('<section id="ties">'))]
    rows = re.findall(r'<tr class="tie" data-agent="(\w+)">.*?heard-from">(\d+)<.*?heard-by">(\d+)<.*?<td>(.*?)</td></tr>',
                      section, re.S)
    # b: a heard b once, b heard a twice (3 in all); c: a heard c once on day 2
    assert rows == [(b.persona.key, "1", "2", "ally (0.50)"), (c.persona.key, "1", "0", "—")]
