"""Instruments for studying a run (a Django app, label "instruments"): interventions (changing a
paused run's world), interviews (asking an agent a question as it stood at a tick) and surveys (a
questionnaire put to every agent). This package holds their state, which the engine uses; their
pages are in voyage/web/ (instruments.py, surveys.py), their API routers in voyage/api/, their
commands (intervene, interview, survey) in voyage/management/commands/. The rows
(`models.py`), the questionnaire's file form and what interventions change in a run's world
(`world_changes.py`) sit lower still, with the run's tables: memories reads them (docs/code-layout.md)."""
