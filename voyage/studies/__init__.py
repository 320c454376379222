"""Studies (a Django app, label "studies"): many runs as one experiment, their arms, scheduling on
the worker, measures and statistics. Their pages are in voyage/web/ (studies.py, study_report.py),
their API router in voyage/api/studies.py, their command in voyage/management/commands/study.py."""
