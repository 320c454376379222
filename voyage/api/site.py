"""The NinjaAPI: every operation needs a staff session or an API token (voyage/api/auth.py)."""
from __future__ import annotations

from ninja import NinjaAPI

from voyage.api import agents, events, runs
from voyage.api.auth import AUTH

api = NinjaAPI(title="Voyage API", version="1", auth=AUTH, urls_namespace="api",
               description="Runs, agents, memories, events, transcripts, model calls and tidy tables of Voyage. "
                           "Authenticate with a staff session (unsafe methods need the X-CSRFToken header) or an "
                           "API token made in the admin, sent as X-API-Key.")
api.add_router("", runs.router)
api.add_router("", agents.router)
api.add_router("", events.router)
