"""One offline run of 1912 (120 ticks of day 1, every agent) shared by the judging tests."""
from __future__ import annotations

import pytest

from tests.memory_helpers import finished_run

TICKS = 120


@pytest.fixture(scope="session")
def judged_run(django_db_setup, django_db_blocker):
    with finished_run(django_db_blocker, TICKS, seed=11) as made:
        yield made
