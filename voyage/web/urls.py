"""The dashboards' URLs (namespace "web")."""
from django.urls import path

from voyage.web import overview, runs

app_name = "web"
urlpatterns = [
    path("", runs.runs_list, name="runs"),
    path("runs/<int:run_id>/control/<str:verb>/", runs.run_control, name="run-control"),
    path("runs/<int:run_id>/", overview.overview, name="overview"),
    path("runs/<int:run_id>/ship.json", overview.ship_json, name="ship"),
]
