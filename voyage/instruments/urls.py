"""The interview, intervention and survey forms' URLs (included in the "web" namespace by voyage/web/urls.py)."""
from django.urls import path

from voyage.instruments import survey_views, views

urlpatterns = [
    path("runs/<int:run_id>/agents/<slug:agent_key>/interviews/", views.agent_interview, name="agent_interview"),
    path("runs/<int:run_id>/interventions/", views.run_intervene, name="run_intervene"),
    path("runs/<int:run_id>/surveys/", survey_views.run_surveys, name="run_surveys"),
    path("runs/<int:run_id>/surveys/new/", survey_views.run_survey, name="run_survey"),
    path("runs/<int:run_id>/surveys/<int:survey_id>/", survey_views.survey_answers, name="run_survey_answers"),
    path("runs/<int:run_id>/surveys/<int:survey_id>/answers.csv", survey_views.survey_csv, name="run_survey_csv"),
]
