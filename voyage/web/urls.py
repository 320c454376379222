"""The dashboards' URLs (namespace "web")."""
from django.urls import path

from voyage.web import overview, runs

app_name = "web"
urlpatterns = [
    path("", runs.runs_list, name="runs"),
    path("runs.json", runs.runs_json, name="runs-json"),
    path("runs/<int:run_id>/control/<str:verb>/", runs.run_control, name="run-control"),
    path("runs/<int:run_id>/", overview.overview, name="overview"),
    path("runs/<int:run_id>/ship.json", overview.ship_json, name="ship"),
]

from voyage.web.inspect_urls import urlpatterns as inspect_patterns  # noqa: E402  room transcripts, inspector, pictures

urlpatterns += inspect_patterns

from voyage.instruments.urls import urlpatterns as instrument_patterns  # noqa: E402  interviews

urlpatterns += instrument_patterns
