"""Scratch databases and real worker processes, for the worker's crash tests and `bench worker`.

Everything here runs `manage.py` in subprocesses configured through the environment
(DATABASE_URL, REDIS_URL), exactly as an operator would, so the code under test is the deployed
code: no settings are patched in-process.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parents[2]  # the project folder (voyage/bench/fleet.py)
MANAGE = [sys.executable, str(ROOT / "manage.py")]
POSTGRES_URL = os.environ.get("VOYAGE_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_TEST_URL = os.environ.get("VOYAGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def postgres_available(url: str = POSTGRES_URL) -> bool:
    try:
        import psycopg

        with psycopg.connect(_conninfo(url), connect_timeout=3):
            return True
    except Exception:
        return False


def redis_available(url: str = REDIS_TEST_URL) -> bool:
    parts = urlparse(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 6379), timeout=3) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _conninfo(url: str) -> str:
    return url.replace("postgres://", "postgresql://", 1)


class ScratchDB:
    """A fresh, migrated database that disappears afterwards: a SQLite file in a temporary folder,
    or a dedicated PostgreSQL database (voyage_test_<random>) on the server POSTGRES_URL names."""

    def __init__(self, kind: str, redis: bool | str = False, server_url: str = POSTGRES_URL):
        if kind not in ("sqlite", "postgres"):
            raise ValueError(f"unknown database kind {kind!r}")
        self.kind = kind
        self.redis = REDIS_TEST_URL if redis is True else redis  # False, or the Redis URL to use
        self.server_url = server_url
        self.queue_name = f"voyage-test-{uuid.uuid4().hex[:10]}"  # a Redis queue of its own
        self._tmp = tempfile.TemporaryDirectory(prefix="voyage-worker-")
        self.dir = Path(self._tmp.name)
        if kind == "sqlite":
            self.url = f"sqlite:///{self.dir / 'voyage.sqlite3'}"
        else:
            self.name = f"voyage_test_{uuid.uuid4().hex[:12]}"
            parts = urlparse(server_url)
            self.url = urlunparse(parts._replace(path=f"/{self.name}"))

    def __enter__(self) -> "ScratchDB":
        if self.kind == "postgres":
            self._admin(f'CREATE DATABASE "{self.name}"')
        manage(self.env(), "migrate", "--noinput", "-v", "0")
        return self

    def __exit__(self, *exc) -> None:
        if self.kind == "postgres":
            self._admin(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        if self.redis:
            _redis_delete_queue(self.redis, self.queue_name)
        self._tmp.cleanup()

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(_conninfo(self.server_url), autocommit=True) as conn:
            conn.execute(sql)

    def env(self, **extra) -> dict:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.update(DATABASE_URL=self.url, VOYAGE_Q_NAME=self.queue_name, VOYAGE_VAR_DIR=str(self.dir / "var"),
                   PYTHONUNBUFFERED="1")
        if self.redis:
            env["REDIS_URL"] = self.redis
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Read the database directly (placeholders written as %s)."""
        if self.kind == "sqlite":
            conn = sqlite3.connect(self.url.removeprefix("sqlite:///"), timeout=30)
            try:
                return conn.execute(sql.replace("%s", "?"), params).fetchall()
            finally:
                conn.close()
        import psycopg

        with psycopg.connect(_conninfo(self.url)) as conn:
            return conn.execute(sql, params).fetchall()

    def execute(self, sql: str, params: tuple = ()) -> None:
        """Write to the database directly, committed (placeholders written as %s)."""
        if self.kind == "sqlite":
            conn = sqlite3.connect(self.url.removeprefix("sqlite:///"), timeout=30)
            try:
                with conn:
                    conn.execute(sql.replace("%s", "?"), params)
            finally:
                conn.close()
            return
        import psycopg

        with psycopg.connect(_conninfo(self.url)) as conn:
            conn.execute(sql, params)

    def run_row(self, run_id: int) -> tuple[int, str, str]:
        """(tick, state, error) of a run."""
        return self.query("SELECT tick, state, error FROM voyage_run WHERE id = %s", (run_id,))[0]


def _redis_delete_queue(url: str, name: str) -> None:
    try:
        import redis

        redis.from_url(url).delete(f"django_q:{name}:q")
    except Exception:
        pass


def manage(env: dict, *args: str, timeout: float = 300) -> str:
    """Run a management command; return its stdout (raise with its stderr if it fails)."""
    done = subprocess.run(MANAGE + list(args), env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return done.stdout


def manage_json(env: dict, *args: str) -> list[dict]:
    return [json.loads(line) for line in manage(env, *args).splitlines() if line.startswith("{")]


class Worker:
    """A `manage.py qcluster` in a process group of its own, so that one SIGKILL takes the whole
    cluster down at once (sentinel, pusher, monitor and workers), like a machine losing power."""

    def __init__(self, env: dict, log_path: Path, cluster: str | None = None):
        self.log_path = log_path
        self._log = open(log_path, "ab")
        env = dict(env)
        if cluster:
            env["Q_CLUSTER_NAME"] = cluster
        self.proc = subprocess.Popen(MANAGE + ["qcluster"], env=env, cwd=ROOT, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self) -> None:
        """SIGKILL the whole process group (qcluster does not always exit on SIGTERM)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)
        # The leader is reaped, but its children may still be exiting: wait until none runs, so a
        # caller that then asks whether a worker's claim is stale (claimant_gone) sees it gone.
        wait_for(lambda: not _running_in_group(self.proc.pid), 30, interval=0.01,
                 what=f"the processes of group {self.proc.pid} to exit")
        self._log.close()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def _running_in_group(pgid: int) -> list[int]:
    """The pids of process group `pgid` that still run (a zombie or a dying task does not)."""
    running = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _ppid, pgrp = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, ValueError):
            continue  # gone meanwhile
        if int(pgrp) == pgid and state not in "ZX":
            running.append(int(stat.parent.name))
    return running


def wait_for(predicate, timeout: float, interval: float = 0.05, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


_references: dict[tuple[int, int], dict] = {}


def reference(ticks: int, seed: int) -> dict:
    """run_voyage's figures (transcript_sha256, memories, llm_calls...) for an uninterrupted
    foreground run on a fresh SQLite database, its memory jobs left queued as a tick worker leaves
    them (so its model calls are the ticks' own); cached per process."""
    key = (ticks, seed)
    if key not in _references:
        with ScratchDB("sqlite") as db:
            _references[key] = manage_json(db.env(), "run_voyage", "--ticks", str(ticks), "--seed", str(seed),
                                           "--memory-worker")[-1]
    return _references[key]



def free_port() -> int:
    """A TCP port free on 127.0.0.1 just now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


class WebServer:
    """daphne serving voyage.asgi (pages, static files, websockets) on a free 127.0.0.1 port, for
    the browser tests and `bench web`; returns once it listens."""

    def __init__(self, env: dict, log_path: Path, timeout: float = 60):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        with open(log_path, "ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port),
                                          "voyage.asgi:application"], env=env, cwd=ROOT, stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        wait_for(lambda: port_open(self.port) or self.proc.poll() is not None, timeout, what="daphne to listen")
        if self.proc.poll() is not None:
            raise RuntimeError(f"daphne exited:\n{log_path.read_text(errors='replace')[-3000:]}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
