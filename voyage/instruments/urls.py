"""The interview and intervention forms' URLs (included in the "web" namespace by voyage/web/urls.py)."""
from django.urls import path

from voyage.instruments import views

urlpatterns = [
    path("runs/<int:run_id>/agents/<slug:agent_key>/interviews/", views.agent_interview, name="agent_interview"),
    path("runs/<int:run_id>/interventions/", views.run_intervene, name="run_intervene"),
]
