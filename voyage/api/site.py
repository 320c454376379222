"""The NinjaAPI: every operation needs a staff session or an API token (voyage/api/auth.py)."""
from __future__ import annotations

from ninja import NinjaAPI
from ninja.parser import Parser

from voyage.api import agents, events, instruments, judging, runs, studies, surveys
from voyage.api.auth import AUTH


class ObjectParser(Parser):
    """Every request body here is a JSON object; anything else is a 400 (ninja: "Cannot parse request body")."""

    def parse_body(self, request):
        data = super().parse_body(request)
        if not isinstance(data, dict):
            raise ValueError("the body must be a JSON object")
        return data


api = NinjaAPI(title="Voyage API", version="1", auth=AUTH, urls_namespace="api", parser=ObjectParser(),
               description="Runs, agents, memories, events, transcripts, model calls and tidy tables of Voyage. "
                           "Authenticate with a staff session (unsafe methods need the X-CSRFToken header) or an "
                           "API token made in the admin, sent as X-API-Key.")
for module in (runs, agents, events, studies, instruments, surveys, judging):
    api.add_router("", module.router)
