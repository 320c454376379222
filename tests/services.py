"""Tests that need a server (PostgreSQL, Redis) skip without it, or fail where CI says it must be there."""
from __future__ import annotations

import os

import pytest


def require(service: str, available: bool) -> None:
    """Skip a test whose server is absent, unless VOYAGE_REQUIRE_SERVICES says CI must run it."""
    if available:
        return
    if os.environ.get("VOYAGE_REQUIRE_SERVICES"):
        pytest.fail(f"{service} is not reachable, and VOYAGE_REQUIRE_SERVICES is set")
    pytest.skip(f"{service} is not reachable (set VOYAGE_REQUIRE_SERVICES=1 to make this a failure)")
