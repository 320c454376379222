"""The interview, intervention and survey forms' URLs (included in the "web" namespace by voyage/web/urls.py)."""
from django.urls import path

from voyage.web import instruments, judging, surveys, validity

urlpatterns = [
    path("runs/<int:run_id>/agents/<slug:agent_key>/interviews/", instruments.agent_interview, name="agent_interview"),
    path("runs/<int:run_id>/interventions/", instruments.run_intervene, name="run_intervene"),
    path("runs/<int:run_id>/judging/", judging.run_judge, name="run_judge"),
    path("runs/<int:run_id>/surveys/", surveys.run_surveys, name="run_surveys"),
    path("runs/<int:run_id>/surveys/new/", surveys.run_survey, name="run_survey"),
    path("runs/<int:run_id>/surveys/<int:survey_id>/", surveys.survey_answers, name="run_survey_answers"),
    path("runs/<int:run_id>/surveys/<int:survey_id>/answers.csv", surveys.survey_csv, name="run_survey_csv"),
    path("runs/<int:run_id>/validity/", validity.run_validity, name="run_validity"),
    path("runs/<int:run_id>/validity/new/", validity.run_validity_new, name="run_validity_new"),
]
