"""URLs of the room transcripts, the agent inspector and the pictures (included by voyage/urls.py)."""
from django.urls import path

from voyage.web import agents, charts, rooms

urlpatterns = [
    path("runs/<int:run_id>/rooms/<slug:room_key>/", rooms.room_transcript, name="room_transcript"),
    path("runs/<int:run_id>/rooms/<slug:room_key>/events.json", rooms.room_events, name="room_events"),
    path("runs/<int:run_id>/rooms/<slug:room_key>/transcript.md", rooms.room_markdown, name="room_markdown"),
    path("runs/<int:run_id>/agents/<slug:agent_key>/", agents.agent_inspector, name="agent_inspector"),
    path("runs/<int:run_id>/agents/<slug:agent_key>/calls/<int:call_id>/", agents.agent_call, name="agent_call"),
    path("runs/<int:run_id>/agents/<slug:agent_key>/memory/", agents.agent_memory, name="agent_memory"),
    path("runs/<int:run_id>/agents/<slug:agent_key>/past/", agents.agent_past, name="agent_past"),
    path("runs/<int:run_id>/agents/<slug:agent_key>/trust/", agents.agent_trust, name="agent_trust"),
    path("runs/<int:run_id>/charts/", charts.run_charts, name="run_charts"),
]
