"""The live feed's websocket (voyage/web/consumers.py), with WebsocketCommunicator: a committed tick's
events arrive, a rolled-back tick's never do, a reconnecting page gets exactly what it missed, in
order, and only staff may connect.

Each test runs its coroutine on an event loop of its own in a thread of its own (`in_own_loop`),
not through pytest-asyncio: in a session that also runs the browser tests, Playwright's sync API
keeps a loop running in the main thread, and no second loop can start there."""
import asyncio
import functools
import threading

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.test import Client

from voyage.engine.runner import create_run
from voyage.models import Event, LLMCall, Run
from voyage.routing import websocket_urlpatterns
from voyage.web.feed import marks
from world.models import AgentState, Scenario

WAIT = 3  # seconds: the feed polls every VOYAGE_FEED_POLL_MS (200 ms by default)


def in_own_loop(test):
    @functools.wraps(test)
    def run(*args, **kwargs):
        outcome = {}

        def target():
            try:
                asyncio.run(test(*args, **kwargs))
            except BaseException as exc:  # handed to the test's thread below
                outcome["error"] = exc

        thread = threading.Thread(target=target, name=f"loop for {test.__name__}")
        thread.start()
        thread.join(timeout=120)
        if thread.is_alive():
            raise TimeoutError(f"{test.__name__} did not finish in 120 s")
        if "error" in outcome:
            raise outcome["error"]

    return run


class RolledBack(Exception):
    pass


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        run = create_run(Scenario.objects.get(slug="1912"), seed=5, target_ticks=10, name="feed test")
        staff = User.objects.create_user("feed-staff", password="x", is_staff=True)
        visitor = User.objects.create_user("feed-visitor", password="x")
        yield {"run": run, "staff": staff, "visitor": visitor}
        Run.objects.filter(pk=run.pk).delete()
        User.objects.filter(pk__in=[staff.pk, visitor.pk]).delete()


def write_tick(run: Run, texts: list[str], fail: bool = False, call_error: str = "") -> list[int]:
    """Write one tick's events (and a failed model call) the way TickWriter does: one transaction
    with the run's tick counter. With fail=True the transaction rolls back."""
    try:
        with transaction.atomic():
            run = Run.objects.get(pk=run.pk)
            last = Event.objects.filter(run=run).order_by("-seq").values_list("seq", flat=True).first()
            first = 0 if last is None else last + 1
            agent = AgentState.objects.filter(run=run).order_by("id").first()
            Event.objects.bulk_create([Event(run=run, tick=run.tick, seq=first + n, kind="communicate", actor=agent,
                                             room_id=agent.location_id, text=t, data={"volume": "normal"})
                                       for n, t in enumerate(texts)])
            if call_error:
                LLMCall.objects.create(run=run, agent=agent, tick=run.tick, purpose="action", prompt_z=b"",
                                       answered=False, error=call_error, outcome=LLMCall.ACTION_FAIL, attempts=4)
            Run.objects.filter(pk=run.pk).update(tick=run.tick + 1)
            if fail:
                raise RolledBack
    except RolledBack:
        return []
    return list(range(first, first + len(texts)))


commit_tick = database_sync_to_async(write_tick)


async def connect(run: Run, user, after: int | None = None, after_call: int = 0) -> WebsocketCommunicator:
    path = f"/ws/runs/{run.pk}/feed/" + ("" if after is None else f"?after={after}&after_call={after_call}")
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def receive_items(communicator, count: int) -> list[dict]:
    items = []
    while len(items) < count:
        message = await communicator.receive_json_from(timeout=WAIT)
        items += message["items"]
    return items


@in_own_loop
async def test_a_committed_tick_arrives_and_a_rolled_back_tick_never_does(world):
    run = world["run"]
    communicator = await connect(run, world["staff"])
    try:
        assert await commit_tick(run, ["<b>lost</b> words"], fail=True) == []
        assert await communicator.receive_nothing(timeout=1)
        seqs = await commit_tick(run, ["Good evening.", "Is this seat taken?"], call_error="timed out")
        items = await receive_items(communicator, 3)
        assert [i.get("seq") for i in items[:2]] == seqs
        assert '"Good evening."' in items[0]["what"] and "lost" not in str(items)
        assert items[2]["kind"] == "model_error" and "timed out" in items[2]["what"]
        assert await communicator.receive_nothing(timeout=0.5)
    finally:
        await communicator.disconnect()


@in_own_loop
async def test_a_page_reconnecting_with_its_last_seq_gets_exactly_what_it_missed_in_order(world):
    run = world["run"]
    _, last_call = await database_sync_to_async(marks)(run.pk)
    first = await commit_tick(run, ["one"])
    communicator = await connect(run, world["staff"], after=first[0] - 1, after_call=last_call)
    seen = [i["seq"] for i in await receive_items(communicator, 1)]
    await communicator.disconnect()
    missed = []
    for words in (["two", "three"], ["four"], ["five", "six", "seven"]):
        missed += await commit_tick(run, words)
    communicator = await connect(run, world["staff"], after=seen[-1], after_call=last_call)
    try:
        items = await receive_items(communicator, len(missed))
        assert [i["seq"] for i in items] == missed
        assert [i["what"].split('"')[1] for i in items] == ["two", "three", "four", "five", "six", "seven"]
        assert await communicator.receive_nothing(timeout=0.5)
    finally:
        await communicator.disconnect()


@in_own_loop
async def test_many_pages_on_one_run_each_get_every_event_once_in_order(world):
    run = world["run"]
    last_seq, last_call = await database_sync_to_async(marks)(run.pk)
    pages = [await connect(run, world["staff"], after=last_seq, after_call=last_call) for _ in range(5)]
    try:
        written = []
        for n in range(4):
            written += await commit_tick(run, [f"line {n}a", f"line {n}b"])
        for page in pages:
            assert [i["seq"] for i in await receive_items(page, len(written))] == written
            assert await page.receive_nothing(timeout=0.3)
    finally:
        for page in pages:
            await page.disconnect()


@pytest.mark.parametrize("who", ["anonymous", "visitor"])
@in_own_loop
async def test_anonymous_and_non_staff_connections_are_refused(world, who):
    user = AnonymousUser() if who == "anonymous" else world["visitor"]
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/runs/{world['run'].pk}/feed/")
    communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert not connected


@in_own_loop
async def test_through_the_site_the_session_decides(world):
    """The deployed stack (origin check, session and auth middleware): no cookie, no feed."""
    from voyage.asgi import application

    headers = [(b"origin", b"http://127.0.0.1"), (b"host", b"127.0.0.1")]
    path = f"/ws/runs/{world['run'].pk}/feed/"
    anonymous = WebsocketCommunicator(application, path, headers=headers)
    assert not (await anonymous.connect())[0]
    client = Client()
    await database_sync_to_async(client.force_login)(world["staff"])
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    staff = WebsocketCommunicator(application, path, headers=headers + [(b"cookie", cookie)])
    try:
        assert (await staff.connect())[0]
    finally:
        await staff.disconnect()


@pytest.mark.django_db
def test_items_after_pages_through_events_and_keeps_calls_with_their_tick(world):
    """(Its django_db mark is also what makes pytest-django create the test database for this module.)"""
    from voyage.web.feed import items_after

    run = world["run"]
    for n in range(5):
        write_tick(run, [f"a{n}", f"b{n}"], call_error="no answer" if n == 1 else "")
    seqs = list(Event.objects.filter(run=run).order_by("seq").values_list("seq", flat=True))
    assert len(seqs) >= 10
    first, last_seq, last_call = items_after(run.pk, -1, 0, limit=2)
    assert [i["seq"] for i in first if "seq" in i] == seqs[:2]
    assert all(i["tick"] <= first[1]["tick"] for i in first)  # no call from a tick whose events wait
    rest, *_ = items_after(run.pk, last_seq, last_call, limit=1000)
    assert [i["seq"] for i in rest if "seq" in i] == seqs[2:]
    assert [i for i in first + rest if i["kind"] == "model_error"]


@pytest.mark.django_db
def test_the_pages_first_feed_stops_at_the_marks_the_websocket_continues_from(world):
    from voyage.web.feed import recent_items

    run = world["run"]
    write_tick(run, ["before"], call_error="early trouble")
    upto = marks(run.pk)
    write_tick(run, ["later words"], call_error="late trouble")  # commits between the marks and the page's read
    shown = recent_items(run.pk, upto)
    assert max(i["seq"] for i in shown if "seq" in i) == upto[0]
    assert max(i["call"] for i in shown if "call" in i) == upto[1]
    assert "later words" not in str(shown) and "late trouble" not in str(shown) and "before" in str(shown)
