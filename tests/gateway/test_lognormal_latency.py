"""The fake server's lognormal latency (voyage/bench/fake_openai_server.py): drawn by the request's content,
so the same call waits the same time under either scheduler, with the median and sigma asked for."""
import math
import statistics
import time

import openai
import pytest

from voyage.bench.fake_openai_server import FakeOpenAI, lognormal_latency_s, parse_latency


def messages(i: int) -> list[dict]:
    return [{"role": "system", "content": "You are aboard."}, {"role": "user", "content": f"turn {i}"}]


def test_the_same_request_meets_the_same_latency_and_others_follow_the_lognormal():
    assert lognormal_latency_s(1000, 0.6, messages(1)) == lognormal_latency_s(1000, 0.6, messages(1))
    assert lognormal_latency_s(1000, 0.6, messages(1)) != lognormal_latency_s(1000, 0.6, messages(2))
    draws = [lognormal_latency_s(1000, 0.6, messages(i)) for i in range(4000)]
    assert statistics.median(draws) == pytest.approx(1.0, rel=0.06)
    assert statistics.pstdev([math.log(d) for d in draws]) == pytest.approx(0.6, rel=0.06)
    assert lognormal_latency_s(250, 0, messages(7)) == 0.25  # sigma 0: a constant latency


def test_the_latency_spec_is_parsed_or_refused_by_name():
    assert parse_latency("lognormal:1000:0.6") == (1000.0, 0.6)
    for bad in ("lognormal", "lognormal:1000", "lognormal:x:0.6", "uniform:1:2", "lognormal:-5:0.6",
                "lognormal:1000:9", "lognormal:nan:0.6"):
        with pytest.raises(ValueError, match="--latency"):
            parse_latency(bad)


def test_the_server_waits_the_drawn_latency_for_each_request():
    with FakeOpenAI(lognormal=(40, 0.6)) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        for i in (1, 2, 3):
            expected = lognormal_latency_s(40, 0.6, messages(i))
            took = []
            for _ in range(2):
                began = time.perf_counter()
                client.chat.completions.create(model="fake", messages=messages(i))
                took.append(time.perf_counter() - began)
            assert all(expected <= t < expected + 0.25 for t in took), (expected, took)
