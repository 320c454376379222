"""Moved to voyage/bench/fake_openai_server.py (the benchmarks use it too, and production code imports
nothing from tests/); kept for tests written before the move."""
from voyage.bench.fake_openai_server import *  # noqa: F401,F403
