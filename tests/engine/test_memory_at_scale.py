"""What a process running ticks holds (issue 42, part 5: a world grown to 2,048 people peaked at 432-457 MB,
against 296 a wave before). Each test fails if one of the things found then comes back: the statistics
libraries and the OpenAI SDK loaded by a process that only runs ticks, a committed tick's writer kept
alive by a reference cycle, the digest's window holding every event of ten ticks."""
from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref

import pytest

from tests.engine_helpers import new_run
from voyage.bench.fleet import ROOT
from voyage.engine.world import RunWorld, SinceDigest
from voyage.engine.writer import TickWriter
from voyage.models import Event

# Loaded by the functions that use them (a judging, a comparison, a network measure, a real endpoint),
# never by the startup of a process that runs ticks: scipy.stats alone is ~75 MB of RSS.
HEAVY = ("scipy", "networkx", "choix", "krippendorff", "openai", "aiohttp")

STARTUP = f"""
import sys
import django
django.setup()
from django.core.management import call_command
call_command("check")  # what run_voyage does before it runs: imports the URLconf, every page and API module
import voyage.management.commands.run_voyage, voyage.runs.tasks, voyage.engine.runner
print("loaded:", *sorted(m for m in {HEAVY!r} if m in sys.modules))
"""


def test_a_process_that_runs_ticks_loads_no_statistics_library_nor_the_sdk(tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "voyage.settings",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}"}
    done = subprocess.run([sys.executable, "-c", STARTUP], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "loaded:"


@pytest.mark.django_db
def test_a_tick_writer_is_freed_as_soon_as_it_is_let_go():
    """Without the cyclic collector: its lists hold it weakly, so nothing of a committed tick (its
    rows, its calls' compressed prompts) waits for a full collection."""
    world = RunWorld(new_run())
    agent = next(iter(world.agents.values()))
    writer = TickWriter(world, 0)
    writer.remember(agent, "sleep", "You wake.")
    writer.event("wake", actor=agent, room_id=agent.location_id)
    gone = weakref.ref(writer)
    gc.disable()
    try:
        del writer
        assert gone() is None
    finally:
        gc.enable()


def test_the_digest_window_keeps_what_its_line_reads_not_the_events():
    since = SinceDigest()
    held = []
    for i in range(1000):
        event = Event(kind="communicate", text=f"line {i}")
        held.append(weakref.ref(event))
        since.add(event)
        del event
    since.add(Event(kind="rung", text="someone remembers"))
    since.add(Event(kind="move", text="walks"))
    assert since.said == 1000 and list(since.latest_said) == ["line 997", "line 998", "line 999"]
    assert since.notable == ["someone remembers"]
    assert all(ref() is None for ref in held)
