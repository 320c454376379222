"""The benchmarks' latent gateway: each answer comes back after its own latency, however many are out."""
import threading
import time

import pytest

from voyage.bench.latent import Clock


def test_every_answer_comes_at_its_own_time_with_thousands_out_on_one_thread():
    clock = Clock()
    try:
        threads = threading.active_count()
        came: list[tuple[float, float, int]] = []  # (when it was due, when it came, which)
        lock = threading.Lock()
        began = time.monotonic()
        for n in range(2048):  # a tick's calls at 2,048 agents; a pool of 512 would queue three quarters
            asked = time.monotonic()
            future = clock.after(0.5 + (n * 7919 % 2048) / 2048 * 0.5, n)
            assert future.due >= asked + 0.5
            future.add_done_callback(lambda f: _came(lock, came, f))
        assert threading.active_count() == threads  # no thread per call
        deadline = began + 10
        while len(came) < 2048 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sorted(n for _, _, n in came) == list(range(2048))
        assert all(at >= due for due, at, _ in came)  # never before its time
        dues = [due for due, _, _ in came]
        assert dues == sorted(dues)  # in the order they are due
        # none waits behind the others: a pool of 512 would hand the last over a second and more late
        assert max(at - due for due, at, _ in came) < 0.5
    finally:
        clock.close()


def _came(lock, came, future):
    with lock:
        came.append((future.due, time.monotonic(), future.result()))


def test_an_answer_due_now_is_given_at_once_and_closing_fails_those_not_yet_due():
    clock = Clock()
    assert clock.after(0, "now").result(timeout=0) == "now"
    later = clock.after(60, "later")
    clock.close()
    with pytest.raises(RuntimeError, match="closed before the answer was due"):
        later.result(timeout=1)
    with pytest.raises(RuntimeError, match="closed"):
        clock.after(1, "after closing")
