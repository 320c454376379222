"""The live feed over websockets: `/ws/runs/<id>/feed/?after=<seq>&after_call=<id>`.

The worker and the web server are separate processes, and on the embedded defaults (SQLite, no
Redis) no channel layer crosses them, so the event table itself is the channel (STACK.md §1): one
RunTail per run and web process reads the rows committed since it last looked, every
VOYAGE_FEED_POLL_MS, and hands them to every page watching that run. A row is only visible once
its tick has committed, so nothing is ever pushed before the commit, and a rolled-back tick
pushes nothing. The same holds on PostgreSQL with Redis: the table stays the replay source.

A page (re)connects with the last seq and call id it has; the consumer first replays everything
after those from the table, then forwards the tail's batches, skipping what it already sent, so
the page misses nothing and gets everything once, in order. Only staff may connect.
"""
from __future__ import annotations

import asyncio
import logging
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from voyage.models import Run
from voyage.web.access import is_staff
from voyage.web.feed import items_after, marks

REFUSED, NO_SUCH_RUN, BAD_REQUEST = 4403, 4404, 4400
RETRY_S = 1.0
log = logging.getLogger("voyage.web")
_items_after = database_sync_to_async(items_after)
_marks = database_sync_to_async(marks)


def poll_seconds() -> float:
    return settings.VOYAGE_FEED_POLL_MS / 1000


@database_sync_to_async
def _run_exists(run_id: int) -> bool:
    return Run.objects.filter(pk=run_id).exists()


class RunTail:
    """Reads one run's new feed items for every page of this process that watches the run."""

    def __init__(self, run_id: int):
        self.run_id = run_id
        self.queues: set[asyncio.Queue] = set()
        self.task: asyncio.Task | None = None
        self.ready = asyncio.Event()

    async def _loop(self) -> None:
        seq = call = None
        while self.queues:
            try:
                if seq is None:
                    seq, call = await _marks(self.run_id)
                    self.ready.set()
                items, seq, call = await _items_after(self.run_id, seq, call)
            except Exception:  # a locked or lost database: the pages wait, they are not dropped
                log.exception("live feed of run %s: reading new events failed; trying again", self.run_id)
                await asyncio.sleep(RETRY_S)
                continue
            if items:
                for queue in list(self.queues):
                    queue.put_nowait(items)
                continue  # more may be waiting: read again at once
            await asyncio.sleep(poll_seconds())


class Tails:
    """The RunTails of this process (and event loop), started by the first watcher of a run and
    stopped by the last one."""

    def __init__(self):
        self.tails: dict[tuple[int, int], RunTail] = {}

    async def join(self, run_id: int, queue: asyncio.Queue) -> None:
        key = (id(asyncio.get_running_loop()), run_id)
        tail = self.tails.get(key)
        if tail is None or tail.task is None or tail.task.done():
            tail = self.tails[key] = RunTail(run_id)
            tail.queues.add(queue)
            tail.task = asyncio.create_task(tail._loop())
        else:
            tail.queues.add(queue)
        await tail.ready.wait()  # the tail's marks are set: whatever it reads next is newer than now

    def leave(self, run_id: int, queue: asyncio.Queue) -> None:
        key = (id(asyncio.get_running_loop()), run_id)
        tail = self.tails.get(key)
        if tail is None:
            return
        tail.queues.discard(queue)
        if not tail.queues:
            self.tails.pop(key, None)
            if tail.task:
                tail.task.cancel()


tails = Tails()


def _int_arg(query: dict, name: str, default: int) -> int:
    raw = query.get(name, [""])[0]
    if raw == "":
        return default
    return int(raw)  # ValueError: the caller refuses the connection


class RunFeedConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        if not is_staff(self.scope.get("user")):
            await self.close(code=REFUSED)
            return
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode())
        try:
            after_seq, after_call = _int_arg(query, "after", -1), _int_arg(query, "after_call", 0)
        except ValueError:
            await self.close(code=BAD_REQUEST)
            return
        if not await _run_exists(self.run_id):
            await self.close(code=NO_SUCH_RUN)
            return
        await self.accept()
        self.queue: asyncio.Queue = asyncio.Queue()
        self.streaming = asyncio.create_task(self.stream(after_seq, after_call))

    async def disconnect(self, code):
        task = getattr(self, "streaming", None)
        if task:
            task.cancel()
            tails.leave(self.run_id, self.queue)

    async def stream(self, seq: int, call: int) -> None:
        await tails.join(self.run_id, self.queue)
        while True:  # replay from the table what the page has not seen, up to (at least) the tail's marks
            items, seq, call = await _items_after(self.run_id, seq, call)
            if items:
                await self.send_json({"items": items, "last_seq": seq, "last_call": call})
            if not items:
                break
        while True:
            fresh = [i for i in await self.queue.get()
                     if ("seq" in i and i["seq"] > seq) or ("call" in i and i["call"] > call)]
            if not fresh:
                continue
            seq = max([seq] + [i["seq"] for i in fresh if "seq" in i])
            call = max([call] + [i["call"] for i in fresh if "call" in i])
            await self.send_json({"items": fresh, "last_seq": seq, "last_call": call})

    async def receive_json(self, content, **kwargs):
        pass  # the page only listens
