"""A real HTTP server on 127.0.0.1 that speaks the chat-completions protocol, for tests and the
concurrency benchmark. The openai 3.x SDK talks httpx2, which respx cannot intercept, so the client
under test goes over a real socket to this server.

It answers with configurable latency, constant or drawn from a lognormal seeded by the request's
content (`lognormal=(median_ms, sigma)`, `--latency lognormal:MEDIAN_MS:SIGMA`: the same request
waits the same time whoever sends it, so two schedulers meet the same latencies), and injects
faults at a configurable rate:
- transport faults (the gateway must retry them): a hang past the client's timeout, 429 with
  Retry-After, 500, a dropped connection, a body that is not JSON, an empty choice list;
- content faults (only on requests that want a JSON object; they must become ACTION_FAIL):
  prose instead of JSON, a missing key, an extra key, a mistyped value, JSON inside a code fence.
Every request is recorded (body, Authorization header, the fault injected) for tests to assert on.
It can also refuse structured-output forms (`refuse_forms`), as llama-cpp-python's server refuses
json_schema: HTTP 500 with a pydantic literal_error naming response_format.

Actions are answered with a simple valid action read off the prompt (speak to the room, or examine
an item listed in it), each taking one tick, so a run progresses and every agent acts every tick.
With `copy_example` (`--copy-example`) they are the turn's example answer, key for key, as
SmolLM2-135M answers.

Run it standalone (the benchmark does, to keep the server off the engine's GIL):
    python voyage/bench/fake_openai_server.py --latency-ms 200      # prints the base URL, then serves
    python voyage/bench/fake_openai_server.py --latency lognormal:1000:0.6
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TRANSPORT_FAULTS = ("timeout", "rate_limit", "server_error", "drop", "garbage", "empty_choices")
CONTENT_FAULTS = ("not_json", "missing_key", "extra_key", "wrong_type", "fenced")
ALL_FAULTS = TRANSPORT_FAULTS + CONTENT_FAULTS


def messages_digest(messages: list[dict]) -> str:
    """Identifies a prompt: tests match the server's records to the LLMCall rows with it."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def wants_json(body: dict) -> bool:
    if body.get("response_format", {}).get("type") == "json_object":
        return True
    text = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
    return "exactly these six keys" in text


def simple_action(messages: list[dict]) -> dict:
    """A valid action read off the situation the prompt shows; deterministic per prompt."""
    user = messages[-1]["content"] if messages else ""
    items = re.search(r"(?:Items here|indistinct objects): (.+)\.\n", user)
    roll = int(hashlib.sha256(user.encode()).hexdigest()[:8], 16)
    if items and roll % 2:
        names = [n.strip() for n in items.group(1).split(",") if n.strip()]
        return _action("interact", names[roll % len(names)], None, "", "What is this?")
    people = re.search(r"People here: (.+)\.\n", user)
    if people and roll % 3 == 0:  # greet someone: a meeting, for the trust ledger
        names = [person_named(shown) for shown in people.group(1).split("; ")]
        return _action("communicate", names[roll % len(names)], "normal", "Good day to you.", "Be friendly.")
    return _action("communicate", None, "normal", "Good day to you all.", "Keep talking; seem at ease.")


def example_in(messages: list[dict]) -> dict | None:
    """The example answer the turn's guide shows (world.rules.prompt_text.turn_guide), if any."""
    found = re.search(r"^An example of the form[^{]*(\{.*\})$", messages[-1]["content"] if messages else "", re.M)
    return json.loads(found.group(1)) if found else None


def parse_latency(spec: str) -> tuple[float, float]:
    """(median_ms, sigma) from "lognormal:MEDIAN_MS:SIGMA"; ValueError naming what is wrong."""
    kind, _, rest = spec.partition(":")
    if kind != "lognormal":
        raise ValueError(f"--latency {spec!r}: write lognormal:MEDIAN_MS:SIGMA, e.g. lognormal:1000:0.6")
    parts = rest.split(":")
    try:
        median_ms, sigma = (float(p) for p in parts) if len(parts) == 2 else (None, None)
    except ValueError:
        median_ms = sigma = None
    if median_ms is None:
        raise ValueError(f"--latency {spec!r}: lognormal takes a median in ms and a sigma, e.g. lognormal:1000:0.6")
    if not (math.isfinite(median_ms) and median_ms > 0):
        raise ValueError(f"--latency {spec!r}: the median must be more than 0 ms")
    if not (math.isfinite(sigma) and 0 <= sigma <= 3):
        raise ValueError(f"--latency {spec!r}: sigma must be between 0 and 3")
    return median_ms, sigma


def lognormal_latency_s(median_ms: float, sigma: float, messages: list[dict]) -> float:
    """One call's latency: median × e^(sigma·z), z standard normal drawn from a generator seeded by
    the request's messages (their digest), so a request meets the same latency every time it is sent."""
    z = random.Random(int(messages_digest(messages)[:16], 16)).gauss(0.0, 1.0)
    return median_ms / 1000 * math.exp(sigma * z)


REFUSAL = ("[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
           "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]")


def form_of(body: dict) -> str:
    """The structured-output form a request was sent in (the names of voyage.gateway.structured)."""
    sent = body.get("response_format")
    if not sent:
        return "none"
    if sent.get("type") == "json_schema":
        return "json_schema"
    return "json_object_schema" if "schema" in sent else "json_object"


def person_named(shown: str) -> str:
    """The target name in "Eleanor Vance (spouse), asleep" or "someone (unknown 2)"."""
    name = shown.removesuffix(", asleep")
    return name if name.startswith("someone (unknown") else re.sub(r" \([^)]*\)$", "", name)


def _action(kind, target, volume, dialogue, thought) -> dict:
    return {"action_type": kind, "target_character": target, "volume": volume, "dialogue": dialogue,
            "duration_minutes": 3, "internal_monologue": thought}


def prose(body: dict) -> str:
    system = body["messages"][0]["content"] if body.get("messages") else ""
    if "[reflection]" in system:
        return "[reflection] I shall keep my counsel and watch the others closely."
    return "A quiet day aboard: a great deal of polite talk and nobody quite sure of anybody."


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # 33 agents connect at once on the first tick; the default (5) drops SYNs


class FakeOpenAI:
    """Start with `with FakeOpenAI(...) as server:`; `server.base_url` is the /v1 URL."""

    def __init__(self, latency_ms: float = 0, fault_rate: float = 0.0, faults=ALL_FAULTS, seed: int = 0,
                 retry_after: str = "0", hang_s: float = 2.0, host: str = "127.0.0.1", port: int = 0,
                 fault_for=None, refuse_forms=(), lognormal: tuple[float, float] | None = None,
                 copy_example: bool = False):
        self.latency_s = latency_ms / 1000
        self.lognormal = lognormal  # (median_ms, sigma): each request's latency drawn by its content
        self.refuse_forms = tuple(refuse_forms)  # voyage.gateway.structured forms answered with an error
        self.fault_for = fault_for  # optional: body -> the fault to inject into that request (or None)
        self.fault_rate = fault_rate
        self.copy_example = copy_example  # answer each action with the turn's example answer, as a small model does
        self.faults = tuple(faults)
        self.retry_after = retry_after
        self.hang_s = hang_s
        self.rng = random.Random(seed)
        self.forced: list[str] = []  # faults for the next requests, in order, before any random one
        self.records: list[dict] = []
        self.lock = threading.Lock()
        self.httpd = _Server((host, port), self._handler_class())
        self.thread: threading.Thread | None = None

    # --- life cycle -----------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "FakeOpenAI":
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True, name="fake-openai")
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def force(self, *faults: str) -> None:
        with self.lock:
            self.forced.extend(faults)

    # --- deciding -------------------------------------------------------------------------
    def latency_for(self, body: dict) -> float:
        if self.lognormal:
            return lognormal_latency_s(*self.lognormal, body.get("messages", []))
        return self.latency_s

    def _pick_fault(self, body: dict) -> str | None:
        with self.lock:
            if self.forced:
                return self.forced.pop(0)
            if self.fault_for and (fault := self.fault_for(body)):
                return fault
            if self.rng.random() >= self.fault_rate:
                return None
            allowed = [f for f in self.faults if f in TRANSPORT_FAULTS or wants_json(body)]
            return self.rng.choice(allowed) if allowed else None

    def _record(self, entry: dict) -> None:
        with self.lock:
            self.records.append(entry)

    def _handler_class(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: the client reuses its connections

            def setup(self):
                super().setup()
                # Headers and body go out in two writes: without this, Nagle and delayed ACKs add 40 ms.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    return self._send(400, {"error": {"message": "body is not JSON"}})
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                fault = server._pick_fault(body)
                server._record({"body": body, "authorization": self.headers.get("Authorization", ""),
                                "fault": fault, "digest": messages_digest(body.get("messages", [])),
                                "at": time.monotonic()})
                time.sleep(server.latency_for(body))
                server._answer(self, body, fault)

            def _send(self, status: int, payload, headers: dict | None = None, raw: bytes | None = None):
                data = raw if raw is not None else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def drop(self):
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        return Handler

    # --- answering ------------------------------------------------------------------------
    def _answer(self, h, body: dict, fault: str | None) -> None:
        if form_of(body) in self.refuse_forms:
            return h._send(500, {"error": {"message": REFUSAL, "type": "internal_server_error"}})
        if fault == "timeout":
            time.sleep(self.hang_s)  # the client has given up by now
            return h.drop()
        if fault == "rate_limit":
            return h._send(429, {"error": {"message": "rate limited", "type": "rate_limit"}},
                           headers={"Retry-After": self.retry_after})
        if fault == "server_error":
            return h._send(500, {"error": {"message": "internal error"}})
        if fault == "drop":
            return h.drop()
        if fault == "unauthorized":  # not a random fault: a test forces it to see a call that is not retried
            return h._send(401, {"error": {"message": "invalid api key", "type": "auth"}})
        if fault == "garbage":
            return h._send(200, None, raw=b"<html>502 Bad Gateway</html>")
        content = self._content(body, fault)
        reasoning = (body.get("reasoning") or {})
        thinking = bool(reasoning.get("enabled")) or reasoning.get("effort") not in (None, "none")
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        completion = len(content) // 4 + (40 if thinking else 0)
        payload = {
            "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [] if fault == "empty_choices" else [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": completion,
                      "total_tokens": prompt_chars // 4 + completion,
                      "completion_tokens_details": {"reasoning_tokens": 40 if thinking else 0},
                      "prompt_tokens_details": {"cached_tokens": min(prompt_chars // 4, 256)}},
        }
        h._send(200, payload)

    def _content(self, body: dict, fault: str | None) -> str:
        if not wants_json(body):
            return prose(body)
        action = simple_action(body.get("messages", []))
        if self.copy_example and (example := example_in(body.get("messages", []))):
            action = example
        if fault == "not_json":
            return "I think I shall take a turn about the deck."
        if fault == "missing_key":
            action.pop("volume")
        elif fault == "extra_key":
            action["mood"] = "anxious"
        elif fault == "wrong_type":
            action["duration_minutes"] = "three"
        text = json.dumps(action)
        if fault == "fenced":
            return f"Here is my action:\n```json\n{text}\n```"
        return text


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=0)
    parser.add_argument("--latency", help="lognormal:MEDIAN_MS:SIGMA, drawn per request by its content")
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--copy-example", action="store_true", help="answer each action with the turn's example")
    args = parser.parse_args(argv)
    try:
        lognormal = parse_latency(args.latency) if args.latency else None
    except ValueError as exc:
        parser.error(str(exc))
    server = FakeOpenAI(latency_ms=args.latency_ms, fault_rate=args.fault_rate, port=args.port, lognormal=lognormal,
                        copy_example=args.copy_example)
    print(server.base_url, flush=True)
    try:
        server.httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
