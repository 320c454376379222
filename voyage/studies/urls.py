"""The studies pages (namespace "studies"), mounted at /studies/."""
from django.urls import path

from voyage.studies import views

app_name = "studies"
urlpatterns = [
    path("", views.study_list, name="list"),
    path("<int:study_id>/", views.study_detail, name="detail"),
    path("<int:study_id>/progress.json", views.study_progress_json, name="progress"),
    path("<int:study_id>/results.csv", views.study_results_csv, name="results"),
    path("<int:study_id>/report/", views.study_report, name="report"),
    path("<int:study_id>/report.html", views.study_report_file, name="report-file"),
]
