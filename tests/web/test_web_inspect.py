"""Room transcripts, the agent inspector and the pictures, through Django's test client on real
offline runs."""
import io

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from memories.models import Memory
from tests.engine_helpers import new_run
from tests.memory_helpers import jobs_inline
from voyage.engine.runner import advance
from voyage.models import Event, LLMCall
from world.models import AgentState

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def short_run(django_db_setup, django_db_blocker):
    """Sixty ticks of the 1912 scenario: enough talk, climbs and recalled rows for every page."""
    with django_db_blocker.unblock(), jobs_inline():
        run = new_run(seed=7, target_ticks=60)
        advance(run, 60)
    return run


@pytest.fixture
def staff():
    client = Client()
    client.force_login(User.objects.create_user("inspector", is_staff=True))
    return client


def _busiest_room(run):
    from django.db.models import Count

    row = (Event.objects.filter(run=run, kind="communicate").values("room__key").annotate(n=Count("id"))
           .order_by("-n").first())
    return row["room__key"]


def test_the_inspector_shows_the_prompt_the_agent_is_given_next(staff):
    """The context on the page is, word for word, the prompt of the agent's next action call (the
    first call of the next tick, by an agent already awake: one who wakes first remembers waking)."""
    with jobs_inline():
        run = new_run(seed=11, target_ticks=40)
        advance(run, 20)
        for tick in range(20, 30):
            awake = AgentState.objects.filter(run=run, alive=True, asleep=False).select_related("persona")
            shown = {}
            for agent in awake:
                response = staff.get(reverse("web:agent_inspector", args=[run.pk, agent.persona.key]))
                shown[agent.id] = (response.context["prompt"], [r["id"] for r in response.context["recalled"]])
            advance(run, tick + 1)
            first = LLMCall.objects.filter(run=run, tick=tick, purpose="action").first()
            if first.agent_id in shown:
                break
        else:
            pytest.fail("no tick from 20 to 29 began with an awake agent's call")
    messages, recalled = shown[first.agent_id]
    assert messages == first.prompt
    assert recalled == first.recalled


def test_action_calls_record_the_rows_recalled_into_their_prompt(short_run):
    calls = [c for c in LLMCall.objects.filter(run=short_run, purpose="action") if c.recalled]
    assert calls, "no action call recalled anything in sixty ticks"
    for call in calls[:50]:
        user = call.prompt[1]["content"]
        rows = list(Memory.objects.filter(id__in=call.recalled))
        assert len(rows) == len(call.recalled)
        assert {r.agent_id for r in rows} == {call.agent_id}
        assert all(r.text[:160] in user for r in rows)


def test_a_call_page_shows_the_exact_prompt_answer_and_recalled_rows(staff, short_run):
    call = next(c for c in LLMCall.objects.filter(run=short_run, purpose="action").select_related("agent__persona")
                if c.recalled)
    response = staff.get(reverse("web:agent_call", args=[short_run.pk, call.agent.persona.key, call.pk]))
    assert response.context["prompt"] == call.prompt
    assert [r["id"] for r in response.context["recalled"]] == call.recalled
    assert escape(call.raw_answer) in response.content.decode()  # shown escaped, in full


def test_the_markdown_download_is_the_transcript_command_output(staff, short_run):
    room = _busiest_room(short_run)
    out = io.StringIO()
    call_command("transcript", run=str(short_run.pk), room=room, stdout=out)
    response = staff.get(reverse("web:room_markdown", args=[short_run.pk, room]))
    assert response["Content-Disposition"].startswith("attachment")
    assert response.content.decode() == out.getvalue()
    assert "“" in out.getvalue()  # something was said there


def test_the_room_page_pages_through_ticks_and_the_feed_returns_what_follows(staff, short_run, monkeypatch):
    from voyage.web import rooms

    monkeypatch.setattr(rooms, "PAGE", 5)
    room = _busiest_room(short_run)
    url = reverse("web:room_transcript", args=[short_run.pk, room])
    seqs = list(Event.objects.filter(run=short_run, room__key=room).order_by("seq").values_list("seq", flat=True))
    newest = staff.get(url)
    shown = [line["seq"] for t in newest.context["ticks"] for line in t["lines"]]
    assert shown == seqs[-5:] and newest.context["live"] and newest.context["older"]
    earlier = staff.get(url, {"before": shown[0]})
    assert [line["seq"] for t in earlier.context["ticks"] for line in t["lines"]] == seqs[-10:-5]
    assert not earlier.context["live"]
    feed = staff.get(reverse("web:room_events", args=[short_run.pk, room]), {"after": seqs[-8]}).json()
    assert [line["seq"] for line in feed["lines"]] == seqs[-7:]
    assert staff.get(url, {"after": "soon"}).status_code == 400
    assert staff.get(reverse("web:room_transcript", args=[short_run.pk, "no_such_room"])).status_code == 404


def test_memory_search_finds_a_row_by_a_word_of_it(staff, short_run):
    agent = AgentState.objects.filter(run=short_run, rung__gte=1).select_related("persona").first()
    row = Memory.objects.filter(agent=agent, kind="rung").first()  # "your name is …"
    word = agent.persona.display_name.split()[-1]
    response = staff.get(reverse("web:agent_memory", args=[short_run.pk, agent.persona.key]), {"q": word})
    assert row.id in [h.id for h in response.context["hits"]]
    assert f"row {row.id}" in response.content.decode()


def test_past_and_trust_pages_show_the_agents_own_records(staff, short_run):
    agent = AgentState.objects.filter(run=short_run, trust__isnull=False).select_related("persona").first()
    response = staff.get(reverse("web:agent_trust", args=[short_run.pk, agent.persona.key]))
    entries = list(response.context["entries"])
    assert entries and all(e.agent_id == agent.id for e in entries)
    assert all(e.history.all() for e in entries)  # every entry opened with a "first met" row
    assert staff.get(reverse("web:agent_past", args=[short_run.pk, agent.persona.key])).status_code == 200


def test_the_pictures_page_draws_rungs_trust_and_occupancy(staff, short_run):
    response = staff.get(reverse("web:run_charts", args=[short_run.pk]), {"tick": 30})
    html = response.content.decode()
    assert html.count("<svg") == 4  # rungs, trust, the speech graph, occupancy
    from memories.models import TrustHistory

    pairs = set(TrustHistory.objects.filter(entry__run=short_run, tick__lte=30).values_list("entry_id", flat=True))
    assert html.count('class="cell"') == len(pairs) > 0


def test_anonymous_users_go_to_the_login_page_and_non_staff_are_refused(short_run):
    agent = AgentState.objects.filter(run=short_run).select_related("persona", "location").first()
    call = LLMCall.objects.filter(agent=agent).first()
    key, room = agent.persona.key, agent.location.key
    urls = [reverse("web:room_transcript", args=[short_run.pk, room]), reverse("web:room_events", args=[short_run.pk, room]),
            reverse("web:room_markdown", args=[short_run.pk, room]), reverse("web:agent_inspector", args=[short_run.pk, key]),
            reverse("web:agent_call", args=[short_run.pk, key, call.pk]), reverse("web:agent_memory", args=[short_run.pk, key]),
            reverse("web:agent_past", args=[short_run.pk, key]), reverse("web:agent_trust", args=[short_run.pk, key]),
            reverse("web:run_charts", args=[short_run.pk])]
    member = Client()
    member.force_login(User.objects.create_user("passenger"))
    for url in urls:
        response = Client().get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next="), url
        assert member.get(url).status_code == 403, url


def test_the_rung_timeline_links_each_climb_to_the_interaction_that_caused_it(staff, short_run):
    agent = AgentState.objects.filter(run=short_run, rung__gte=1).select_related("persona").first()
    response = staff.get(reverse("web:agent_inspector", args=[short_run.pk, agent.persona.key]))
    climbs = response.context["climbs"]
    assert [c["rung"] for c in climbs] == list(range(1, agent.rung + 1))
    first = climbs[0]
    cause = Event.objects.get(run=short_run, seq=first["cause_seq"])
    assert cause.kind == "interact" and cause.actor_id == agent.id and cause.tick == first["tick"]
    assert first["cause"] == cause.text and "examines" in cause.text
    assert f'#e{cause.seq}"' in response.content.decode()


def _committed_meanwhile(monkeypatch, module, name, commit, after: bool = False):
    """Patch module.name so that `commit` runs once, just before it (or `after` it): a worker's tick
    (or memory job) landing between two of a page's queries, as it does under a run advancing fast."""
    original, pending = getattr(module, name), [commit]

    def with_a_commit(*args, **kwargs):
        if not after:
            while pending:
                pending.pop()()
        result = original(*args, **kwargs)
        while pending:
            pending.pop()()
        return result
    monkeypatch.setattr(module, name, with_a_commit)


def test_the_newest_room_page_is_live_even_if_a_tick_lands_while_it_is_read(staff, short_run, monkeypatch):
    """The page's lines are read, then whether newer ones exist: a tick committed in between made the
    newest page look like an older one, with no live feed (seen under a fast worker in the browser)."""
    from voyage.web import rooms

    room = _busiest_room(short_run)
    newest = Event.objects.filter(run=short_run, room__key=room).order_by("seq").last()
    last_seq = Event.objects.filter(run=short_run).order_by("seq").last().seq

    def a_tick():
        newest.pk, newest.seq, newest.tick = None, last_seq + 1, short_run.tick + 1
        newest.save()
    _committed_meanwhile(monkeypatch, rooms, "_lines", a_tick, after=True)  # the page's lines read, then a tick
    page = staff.get(reverse("web:room_transcript", args=[short_run.pk, room]))
    shown = [line["seq"] for t in page.context["ticks"] for line in t["lines"]]
    assert page.context["live"] and not page.context["newer"]
    assert last_seq + 1 not in shown  # shown as of the marks: the live feed brings it
    assert 'data-live="1"' in page.content.decode()
    feed = staff.get(reverse("web:room_events", args=[short_run.pk, room]), {"after": shown[-1]}).json()
    assert [line["seq"] for line in feed["lines"]] == [last_seq + 1]


def test_the_overview_reads_the_calls_up_to_its_marks_while_a_run_records_more(staff, short_run, monkeypatch):
    """The usage tables take two queries (the sums, then every latency): a first call of a new kind
    recorded in between had a latency and no row, and the overview failed with a 500."""
    from django.core.cache import cache

    from voyage.web import overview

    cache.clear()
    calls = LLMCall.objects.filter(run=short_run)
    before = calls.count()
    assert not calls.filter(purpose="survey").exists()
    template = calls.order_by("id").last()

    def a_survey():  # a kind of call the run has not made before
        template.pk, template.purpose, template.tick = None, "survey", short_run.tick
        template.save()
    _committed_meanwhile(monkeypatch, overview, "plain_rows", a_survey)
    url = reverse("web:overview", args=[short_run.pk])
    page = staff.get(url)
    assert page.status_code == 200
    usage = page.context["usage"]
    assert usage["total"]["calls"] == before and "survey" not in usage["by_purpose"]
    monkeypatch.undo()
    again = staff.get(url).context["usage"]  # a new last call: a new key, the dream counted
    assert again["total"]["calls"] == before + 1 and again["by_purpose"]["survey"]["calls"] == 1
