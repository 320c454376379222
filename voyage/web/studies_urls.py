"""The studies pages (namespace "studies"), mounted at /studies/."""
from django.urls import path

from voyage.web import studies, study_ranking

app_name = "studies"
urlpatterns = [
    path("", studies.study_list, name="list"),
    path("<int:study_id>/", studies.study_detail, name="detail"),
    path("<int:study_id>/progress.json", studies.study_progress_json, name="progress"),
    path("<int:study_id>/results.csv", studies.study_results_csv, name="results"),
    path("<int:study_id>/report/", studies.study_report, name="report"),
    path("<int:study_id>/rank/", study_ranking.study_rank, name="rank"),
    path("<int:study_id>/report.html", studies.study_report_file, name="report-file"),
]
