"""schemathesis over the whole API schema (STACK.md section 7): every operation, with valid and
invalid inputs, as staff with a token: no 5xx, every status and body as the schema declares, invalid
input refused. Then every operation as anonymous: only 401.

Path parameters are steered half of the time to a real run, agent and room (a hook), so the
operations are exercised on data, not only on 404s."""
from __future__ import annotations

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from voyage.api.schemas import MAX_ID

schema = schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())
REAL: dict = {}


@schema.hook
def map_path_parameters(context, path_parameters):
    """Valid even ids, and valid keys of even length, point at the session's run, agent and room.
    Invalid values are left alone: they are the negative cases, which must stay invalid."""
    if not REAL or not path_parameters:
        return path_parameters
    run_id = path_parameters.get("run_id")
    if isinstance(run_id, int) and not isinstance(run_id, bool) and 1 <= run_id <= MAX_ID and run_id % 2 == 0:
        path_parameters["run_id"] = REAL["run"]
    for name in ("key", "room"):
        value = path_parameters.get(name)
        if isinstance(value, str) and 0 < len(value) <= 60 and len(value) % 2 == 0:
            path_parameters[name] = REAL[name]
    return path_parameters


@pytest.fixture(scope="module")
def api_data(django_db_setup, django_db_blocker):
    from tests.api_helpers import staff_with_token
    from voyage.engine.runner import advance, create_run
    from voyage.models import Event
    from world.models import Scenario

    with django_db_blocker.unblock():
        _, token = staff_with_token("schemathesis-staff")
        run = advance(create_run(Scenario.objects.get(slug="1912"), seed=21, target_ticks=12), 12)
        spoken = Event.objects.filter(run=run, kind="communicate").select_related("actor__persona", "room").first()
        REAL.update(run=run.pk, key=spoken.actor.persona.key, room=spoken.room.key)
    yield token
    REAL.clear()


@pytest.fixture(autouse=True)
def keep_the_test_connection():
    """The WSGI handler closes the database connection after each request (request_finished); inside
    a test's transaction that would end it. Django's own test client disconnects it the same way."""
    from django.core import signals
    from django.db import close_old_connections

    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


# Schema-valid input may still be refused by the run configuration's rules (422) or the run's state (409).
STAFF_SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.django_db
@schema.parametrize()
@STAFF_SETTINGS
def test_every_operation_as_staff_with_a_token(case, api_data, queued):
    case.call_and_validate(headers={"X-API-Key": api_data}, excluded_checks=[positive_data_acceptance])


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_as_anonymous_is_401(case, api_data):
    if case.method.upper() != case.operation.method.upper():
        return  # schemathesis also probes methods the path does not have (405): not an operation
    response = case.call()
    assert response.status_code == 401, f"{case.method} {case.formatted_path}: {response.status_code}"
