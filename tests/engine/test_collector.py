"""The collector while ticks run (voyage/engine/collector.py): `advance` collects less often during its
ticks and puts back the process's thresholds after, however it ends, and whichever thread ends last."""
import gc
import threading

import pytest

from voyage.engine.collector import WHILE_TICKING, collecting_less
from voyage.engine.runner import advance, create_run
from voyage.models import Run
from world.models import Scenario

pytestmark = pytest.mark.django_db

FOUND = (777, 11, 12)  # thresholds no one else sets: what was there before must be what is there after


@pytest.fixture
def found():
    before = gc.get_threshold()
    gc.set_threshold(*FOUND)
    yield FOUND
    gc.set_threshold(*before)


def test_advance_ticks_at_the_collectors_own_thresholds_and_puts_them_back(found):
    run = create_run(Scenario.objects.get(slug="edelweiss"), seed=5, schedule=Run.SIMULTANEOUS, target_ticks=3)
    seen = []
    advance(run, 3, on_tick=lambda t: seen.append(gc.get_threshold()), memory_inline=True)
    assert run.tick == 3
    assert seen == [WHILE_TICKING] * 3
    assert gc.get_threshold() == found


class Broken(Exception):
    pass


def test_a_run_that_fails_puts_the_thresholds_back(found):
    run = create_run(Scenario.objects.get(slug="edelweiss"), seed=5, schedule=Run.SIMULTANEOUS, target_ticks=3)

    def fail(tick):
        raise Broken(f"stopped at {tick}")

    with pytest.raises(Broken):
        advance(run, 3, on_tick=fail, memory_inline=True)
    assert gc.get_threshold() == found


def test_the_last_block_to_end_puts_them_back_whichever_thread_it_is(found):
    inside, leave = threading.Event(), threading.Event()
    during = []

    def other():
        with collecting_less():
            inside.set()
            leave.wait(10)
            during.append(gc.get_threshold())

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(10)
    with collecting_less():
        assert gc.get_threshold() == WHILE_TICKING
    assert gc.get_threshold() == WHILE_TICKING  # the other thread's block is still under way
    leave.set()
    thread.join(10)
    assert during == [WHILE_TICKING]
    assert gc.get_threshold() == found
