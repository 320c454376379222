"""The overview and the inspector ask the database a fixed number of queries, whatever the run's size
(issue 42: `bench web` prints them), and what they keep in the cache is never shown stale: after a
tick commits, or a call is made between ticks, a page served from its caches is the page a cold
cache gives."""
import difflib
import re

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection
from django.db.models import Count
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.memory_helpers import jobs_inline
from voyage.engine.runner import advance, create_run
from voyage.instruments.interventions import intervene
from voyage.instruments.interviews import ask
from voyage.models import Event, LLMCall, Run
from voyage.web.ties import count_heard
from world.models import AgentState, Scenario
from world.scenarios.files import data_yaml, import_yaml, scenario_data
from world.scenarios.grow import grow

pytestmark = pytest.mark.django_db


def _run(scenario, ticks: int, interventions: int = 0) -> Run:
    run = create_run(scenario, seed=42, target_ticks=200, name=f"{ticks} ticks")
    room = scenario.rooms.order_by("id").first().key
    for n in range(interventions):  # waiting in the queued run, applied as it reaches their ticks
        intervene(run, "room_event", f"A bell rings ({n}).", tick=2 + n, room=room, made_by="tester")
    with jobs_inline():
        advance(run, ticks, memory_inline=True)
    return Run.objects.get(pk=run.pk)


@pytest.fixture(scope="module")
def small_and_large(django_db_setup, django_db_blocker):
    """1912 as shipped for 4 ticks, and grown to twice its people for 8 ticks with interventions."""
    with django_db_blocker.unblock():
        shipped = Scenario.objects.get(slug="1912")
        grown = import_yaml(data_yaml(grow(scenario_data(shipped), 2 * shipped.personas.count())))
        runs = _run(shipped, 4), _run(grown, 8, interventions=3)
        yield runs
        Run.objects.filter(pk__in=[r.pk for r in runs]).delete()


@pytest.fixture
def staff():
    client = Client()
    client.force_login(User.objects.get_or_create(username="query-counter", defaults={"is_staff": True})[0])
    return client


def _talker(run: Run) -> str:
    return (Event.objects.filter(run=run, kind="communicate").values("actor__persona__key").annotate(n=Count("id"))
            .order_by("-n", "actor__persona__key").values_list("actor__persona__key", flat=True).first())


def _queries(client, path: str) -> list[str]:
    """The page's queries, numbers left out (so two runs' lists can be compared line by line)."""
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return [re.sub(r"\d+", "N", q["sql"])[:160] for q in captured.captured_queries]


def _pages(run: Run) -> dict[str, str]:
    return {"overview": f"/runs/{run.pk}/", "inspector": f"/runs/{run.pk}/agents/{_talker(run)}/"}


def test_the_pages_ask_as_many_queries_on_a_run_twice_the_size_twice_as_long(staff, small_and_large):
    """The one query that may differ is the inspector's recall search, which the engine's context
    builder makes only for an agent with rows older than its hot window (docs/engine.md)."""
    small, large = small_and_large
    assert large.agents.count() == 2 * small.agents.count() and large.interventions.count() == 3
    assert LLMCall.objects.filter(run=large).count() > 2 * LLMCall.objects.filter(run=small).count()
    for page in ("overview", "inspector"):
        counts = []
        for run in (small, large):
            cache.clear()
            path = _pages(run)[page]
            counts.append((_queries(staff, path), _queries(staff, path)))  # cold caches, then warm
        for small_q, large_q in zip(*counts):  # the same queries, but for the context's recall search
            extra = [line for line in difflib.ndiff(small_q, large_q) if line[:1] in "+-"]
            assert all("memory_fts MATCH" in line for line in extra), (page, extra)
        cold, warm = map(len, counts[0])
        assert cold <= {"overview": 22, "inspector": 35}[page], (page, cold, warm)
        assert warm <= {"overview": 15, "inspector": 9}[page], (page, cold, warm)  # the feed, context, ties kept


def _same_page(html: str) -> str:
    """The page without what differs from one load to the next whatever the data (CSRF tokens)."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


def _fresh(client, path: str) -> str:
    """The page as it is with no cache: what every cached page must equal."""
    cache.clear()
    return _same_page(client.get(path).content.decode())


def test_a_cached_page_is_never_stale_after_a_tick_or_a_call_between_ticks(staff, small_and_large):
    run = Run.objects.get(pk=small_and_large[0].pk)
    paths = _pages(run)
    cache.clear()
    before = {page: _same_page(staff.get(path).content.decode()) for page, path in paths.items()}  # caches filled
    talker = AgentState.objects.get(run=run, persona__key=_talker(run))
    heard_before = count_heard(run, talker)
    with jobs_inline():
        advance(run, run.tick + 4, memory_inline=True)  # four more ticks commit: talk, calls, events
    assert count_heard(run, talker) != heard_before  # the inspector's ties, a cached part, have moved
    cached = {page: _same_page(staff.get(path).content.decode()) for page, path in paths.items()}
    for page, path in paths.items():  # (a fresh page clears every cache: each page is read cached first)
        assert cached[page] != before[page], page
        assert cached[page] == _fresh(staff, path), page
    for path in paths.values():
        staff.get(path)  # the caches again hold this tick
    ask(run, talker, "What did you hear today?")  # a call recorded between ticks: usage, not a tick
    usage_before = before["overview"]
    cached = {page: _same_page(staff.get(path).content.decode()) for page, path in paths.items()}
    for page, path in paths.items():
        assert cached[page] == _fresh(staff, path), page
    overview = cached["overview"]
    assert f"{LLMCall.objects.filter(run=run).count()} calls" in overview and overview != usage_before


def test_the_inspector_kept_context_moves_with_a_memory_planted_between_ticks(staff, small_and_large):
    """An intervention between ticks writes an event and a row of the agent's memory, not a tick: the
    context the inspector keeps must show the planted row at once, as a cold cache does."""
    run = Run.objects.get(pk=small_and_large[0].pk)
    path = _pages(run)["inspector"]
    cache.clear()
    before = _same_page(staff.get(path).content.decode())  # the context, ties and climbs kept
    intervene(run, "memory", "A stranger whispered the word lighthouse.", agent=_talker(run), made_by="tester")
    cached = _same_page(staff.get(path).content.decode())
    assert "whispered the word lighthouse" not in before and "whispered the word lighthouse" in cached
    assert cached == _fresh(staff, path)
