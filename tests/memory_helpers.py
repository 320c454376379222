"""Shared set-up for the memory tests: jobs run inline (django-q2 sync, STACK.md section 2), runs
built on the 1912 scenario that migration world/0002 installs."""
from __future__ import annotations

import contextlib
import re

from django_q.conf import Conf

from memories.models import Memory
from voyage.engine.runner import create_run
from voyage.engine.world import RunWorld
from voyage.engine.writer import TickWriter
from world.models import Scenario

NONCE = re.compile(r"\b[a-z]+-\d{4}\b")  # the offline policy's spoken codes ("pewter-6533")
THOUGHT = re.compile(r"\[thought [0-9a-f]{8}\]")  # the offline policy's monologue ids


@contextlib.contextmanager
def jobs_inline(sync: bool = True):
    old = Conf.SYNC
    Conf.SYNC = sync
    try:
        yield
    finally:
        Conf.SYNC = old


def scenario() -> Scenario:
    return Scenario.objects.get(slug="1912")


def new_run(**params):
    return create_run(scenario(), **params)


def plant(run, agent_id: int, texts, tick: int = 0, kind: str = "seen", importance: int = 2) -> list[Memory]:
    rows = [Memory(run=run, agent_id=agent_id, tick=tick, kind=kind, text=t, importance=importance) for t in texts]
    return Memory.objects.bulk_create(rows)


def world_and_writer(run):
    world = RunWorld(run)
    return world, TickWriter(world, run.tick)


def secrets_in(text: str) -> set[str]:
    return set(NONCE.findall(text)) | set(THOUGHT.findall(text))
