"""The simultaneous schedule against a model with latency: every call starts as soon as its prompt
is built, and answers resolve in the seeded order as soon as those before them are in — the first
agent's action does not wait for the last agent's answer."""
import threading
import time
from concurrent.futures import Future

import pytest

from tests.engine_helpers import ScriptedGateway, act, agent, cast_of, new_run, people_shown, stage
from voyage.engine.tick import run_tick
from voyage.engine.world import RunWorld
from voyage.models import Run

pytestmark = pytest.mark.django_db


class HeldBackGateway(ScriptedGateway):
    """Answers arrive on another thread once every expected call has started; the answer to the
    call started last is held back until the first-started agent's action shows in the world (or
    a timeout passes), and whether it did is recorded."""

    def __init__(self, world, expected: int, actions):
        super().__init__(actions)
        self.world, self.expected = world, expected
        self.started: list[tuple] = []
        self.first_resolved_before_last_answer = None

    def start(self, request) -> Future:
        future = Future()
        self.started.append((request, future))
        if len(self.started) == self.expected:
            threading.Thread(target=self._answer_all, daemon=True).start()
        return future

    def _answer_all(self):
        *early, (last, held) = self.started
        for request, future in early:
            future.set_result(self.complete(request))
        first = self.world.agents[early[0][0].agent_id]
        deadline = time.monotonic() + 3
        while first.busy_until_tick <= self.world.run.tick and time.monotonic() < deadline:
            time.sleep(0.01)
        self.first_resolved_before_last_answer = first.busy_until_tick > self.world.run.tick
        held.set_result(self.complete(last))


def test_the_first_action_resolves_before_the_last_answer_is_in():
    run = new_run(schedule=Run.SIMULTANEOUS)
    keys = cast_of(4)
    stage(run, {key: {"room": "bridge", "rung": 1} for key in keys})
    world = RunWorld(run)
    gateway = HeldBackGateway(world, expected=4, actions={key: act("sleep", duration=30) for key in keys})
    writer = run_tick(world, gateway)
    writer.commit(writer.start_tick + 1)
    assert len(gateway.started) == 4
    assert gateway.first_resolved_before_last_answer is True
    # and still every prompt showed the room as the tick began: nobody asleep yet
    for request in gateway.requests:
        shown = people_shown("\n\n".join(m["content"] for m in request.messages))
        assert len(shown) == 3 and not [p for p in shown if p.endswith("asleep")]
    assert all(agent(run, key).asleep for key in keys)
