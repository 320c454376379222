"""The API (django-ninja) at /api/: runs, agents, memories, events, transcripts, model calls and
tidy tables, for staff sessions and API tokens. Schema at /api/openapi.json, docs at /api/docs."""
