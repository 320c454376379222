"""The digest covers the ten ticks since the last one (issue 8, item 4), not just the tick it runs in."""
from __future__ import annotations

import logging
import re

import pytest

from tests.engine_helpers import new_run
from voyage.engine.runner import advance
from voyage.models import Event

pytestmark = pytest.mark.django_db


class Lines(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@pytest.fixture
def digest_lines():
    log = logging.getLogger("voyage.digest")  # it does not propagate: listen to it directly
    handler, level = Lines(), log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    yield handler.lines
    log.removeHandler(handler)
    log.setLevel(level)


def test_the_digest_covers_the_ten_ticks_since_the_last(digest_lines):
    run = new_run(seed=11, target_ticks=20)
    advance(run, 20)
    assert [line[:13] for line in digest_lines] == ["Day 1, 06:30 ", "Day 1, 07:00 "]  # ticks 10 and 20
    line = digest_lines[1]
    said = int(re.search(r"\| said (\d+):", line).group(1))
    events = Event.objects.filter(run=run)
    inside = events.filter(kind="communicate", tick__gt=10, tick__lt=20).count()  # surely in the window
    around = events.filter(kind="communicate", tick__gte=10, tick__lte=20).count()  # at most these
    last_tick = events.filter(kind="communicate", tick__gte=19).count()
    assert last_tick < inside <= said <= around
    climbs = list(events.filter(kind="rung", tick__gt=10, tick__lt=20).values_list("text", flat=True))
    assert climbs and all(text in line for text in climbs)
