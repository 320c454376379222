"""The dashboards' URLs (namespace "web")."""
from django.urls import path

from voyage.web import overview, runs
from voyage.web.inspect_urls import urlpatterns as inspect_patterns  # room transcripts, inspector, pictures
from voyage.web.instrument_urls import urlpatterns as instrument_patterns  # interviews, interventions, surveys

app_name = "web"
urlpatterns = [
    path("", runs.runs_list, name="runs"),
    path("runs.json", runs.runs_json, name="runs-json"),
    path("runs/<int:run_id>/control/<str:verb>/", runs.run_control, name="run-control"),
    path("runs/<int:run_id>/", overview.overview, name="overview"),
    path("runs/<int:run_id>/ship.json", overview.ship_json, name="ship"),
    *inspect_patterns,
    *instrument_patterns,
]
