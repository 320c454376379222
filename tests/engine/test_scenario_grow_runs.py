"""A grown world runs like a small one (issue 21): each shipped scenario grown to 64 people imports
as a file, runs a day offline (simultaneous, memory jobs inline) and keeps every privacy rule the
small worlds keep (tests/privacy_helpers.py)."""
import pytest

from tests.memory_helpers import jobs_inline
from tests.privacy_helpers import (assert_no_name_before_its_rung, assert_thoughts_stay_their_own,
                                   assert_whispers_stay_private)
from voyage.engine.runner import advance, create_run
from voyage.models import Event, Run
from world.models import Scenario
from world.scenarios.files import data_yaml, import_yaml, scenario_data
from world.scenarios.grow import grow
from world.time import TICKS_PER_DAY

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", params=["1912", "edelweiss"])
def grown_day(request, django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        text = data_yaml(grow(scenario_data(Scenario.objects.get(slug=request.param)), 64))
        scenario = import_yaml(text)
        run = create_run(scenario, seed=21, schedule=Run.SIMULTANEOUS, target_ticks=TICKS_PER_DAY)
        with jobs_inline():
            advance(run, TICKS_PER_DAY, memory_inline=True)
        yield Run.objects.get(pk=run.pk)
        Run.objects.filter(pk=run.pk).delete()


def test_the_grown_day_runs_to_its_end(grown_day):
    assert grown_day.tick == TICKS_PER_DAY and grown_day.agents.count() == 64
    assert Event.objects.filter(run=grown_day, kind="bulletin").exists()
    homes = set(grown_day.agents.values_list("persona__home_node__key", flat=True))
    moved_to = set(Event.objects.filter(run=grown_day, kind="move").values_list("room__key", flat=True))
    assert {k.rsplit("-", 1)[1] for k in moved_to} == {k.rsplit("-", 1)[1] for k in homes}  # every copy lives


def test_no_whisper_reaches_a_bystander_in_a_grown_world(grown_day):
    assert assert_whispers_stay_private(grown_day) > 0


def test_no_monologue_reaches_another_agent_in_a_grown_world(grown_day):
    assert assert_thoughts_stay_their_own(grown_day) > 1000


def test_no_name_reaches_an_agent_before_its_rung_in_a_grown_world(grown_day):
    assert assert_no_name_before_its_rung(grown_day) > 1000
