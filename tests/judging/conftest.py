"""One offline run of 1912 (120 ticks of day 1, every agent) shared by the judging tests."""
from __future__ import annotations

import pytest

from tests.engine_helpers import new_run
from tests.memory_helpers import jobs_inline
from voyage.engine.runner import advance
from voyage.models import Run

TICKS = 120


@pytest.fixture(scope="session")
def judged_run(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), jobs_inline():
        made = new_run(seed=11, target_ticks=TICKS)
        advance(made, TICKS, memory_inline=True)
        Run.objects.filter(pk=made.pk).update(state=Run.FINISHED)
        made.refresh_from_db()
    yield made
    with django_db_blocker.unblock():  # made outside the tests' transactions: leave no run for later files
        Run.objects.filter(pk=made.pk).delete()
