"""The hot window in an action prompt: the last hot_memory_limit rows of the agent's own stream,
newest first, its own monologue intact."""
import pytest

from memories.context import HOT_HEADER
from memories.models import Memory
from tests.engine_helpers import ScriptedGateway, act, agent, cast_of, new_run, stage, step

pytestmark = pytest.mark.django_db


def hot_lines(prompt: str) -> list[str]:
    block = prompt[prompt.index(HOT_HEADER) + len(HOT_HEADER):].strip().split("\n\n")[0]
    return [line.split("] ", 1)[1] for line in block.splitlines()]


def test_the_hot_window_is_the_newest_rows_newest_first():
    run = new_run(hot_memory_limit=5)
    me, other = cast_of(2)
    stage(run, {me: {"room": "bridge"}, other: {"room": "first_class_lounge", "busy_until_tick": 10_000}})
    mine, theirs = agent(run, me), agent(run, other)
    Memory.objects.bulk_create([Memory(run=run, agent=mine, tick=90 + i, kind="seen", text=f"row {i}")
                                for i in range(1, 9)])
    Memory.objects.bulk_create([Memory(run=run, agent=theirs, tick=99, kind="seen", text="not yours")])
    gateway = ScriptedGateway({me: [act("interact", "indistinct object 1", thought="I must not panic."),
                                    act("sleep", duration=30)]})
    step(run, gateway)
    first = gateway.prompts("action", me)[0]
    assert hot_lines(first) == ["row 8", "row 7", "row 6", "row 5", "row 4"]
    step(run, gateway)
    second = hot_lines(gateway.prompts("action", me)[1])
    assert len(second) == 5 and second[1:] == ["row 8", "row 7", "row 6", "row 5"]
    assert second[0].startswith("You examine an indistinct object") and second[0].endswith(
        "(You thought: I must not panic.)")
    assert "not yours" not in gateway.prompts("action", me)[1]
