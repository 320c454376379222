"""The share of time calls were in flight (voyage/gateway/in_flight.py) and `run_voyage`'s figures:
in_flight_share and no_call_in_flight_share."""
import io
import json
from concurrent.futures import Future

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from voyage.bench.fake_openai_server import FakeOpenAI
from voyage.gateway.base import ACTION, Gateway, ModelAnswer, ModelRequest
from voyage.gateway.in_flight import InFlightMeter
from voyage.models import LLMCall


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class Held(Gateway):
    """Calls that stay out until the test answers them."""

    name = "held"

    def __init__(self):
        self.out: list[Future] = []

    def complete(self, request):
        return ModelAnswer(text="{}")

    def start(self, request):
        self.out.append(Future())
        return self.out[-1]


def request(tick=0) -> ModelRequest:
    return ModelRequest(purpose=ACTION, messages=[{"role": "user", "content": "hi"}], tick=tick)


def test_a_call_is_in_flight_from_start_until_its_answer_is_available():
    clock, inner = Clock(), Held()
    meter = InFlightMeter(inner, clock=clock)
    first = meter.start(request())
    clock.now += 1.0
    second = meter.start(request())
    clock.now += 2.0
    inner.out[0].set_result(ModelAnswer(text="{}"))  # the first answered after 3 s
    clock.now += 1.0
    inner.out[1].set_result(ModelAnswer(text="{}"))  # the second after 3 s too, one second later
    assert first.result().text == second.result().text == "{}"
    assert (meter.in_flight_s, meter.busy_s, meter.calls) == (6.0, 4.0, 2)
    clock.now += 6.0  # 6 s with nothing out
    meter.complete_many([request(), request()])  # a batch: answered together, at once here
    assert meter.calls == 4 and meter.in_flight_s == 6.0
    figures = meter.figures(wall_s=10.0, agents=2)
    assert figures == {"in_flight_share": 0.3, "no_call_in_flight_share": 0.6, "in_flight_call_s": 6.0}
    assert meter.name == "held" and meter.out is inner.out  # the engine sees the inner gateway


def test_a_call_that_fails_to_start_is_not_left_in_flight():
    class Broken(Held):
        def start(self, request):
            raise LookupError("no recorded answer")

    meter = InFlightMeter(Broken(), clock=Clock())
    with pytest.raises(LookupError):
        meter.start(request())
    assert meter.calls == 1 and meter._open == 0


def run_voyage(*args) -> dict:
    out = io.StringIO()
    call_command("run_voyage", *args, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue().strip().splitlines()[-1])


@pytest.mark.django_db
def test_the_json_line_reports_the_share_of_time_calls_were_in_flight():
    with FakeOpenAI(latency_ms=40) as server:
        common = ["--ticks", "3", "--base-url", server.base_url, "--concurrency", "64"]
        together = run_voyage(*common, "--schedule", "simultaneous")
        one_by_one = run_voyage(*common, "--schedule", "sequential")
    for line in (together, one_by_one):
        calls = LLMCall.objects.filter(run_id=line["run_id"])
        answered_s = sum(calls.values_list("latency_ms", flat=True)) / 1000
        # every call is out at least as long as the server took, measured from start to answer
        assert answered_s >= calls.count() * 0.04 * 0.95
        assert answered_s <= line["in_flight_call_s"] <= answered_s + calls.count() * 0.25
        share = line["in_flight_call_s"] / (line["wall_s"] * line["agents"])
        assert line["in_flight_share"] == pytest.approx(share, abs=0.002)
        assert 0 <= line["no_call_in_flight_share"] < 1
    # one call at a time: at most one agent in 33 has a call out; all at once: many more
    assert one_by_one["in_flight_share"] <= 1 / one_by_one["agents"] + 0.001
    assert together["in_flight_share"] > 5 * one_by_one["in_flight_share"]
