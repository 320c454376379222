"""The old home of the worker's tasks, kept because django-q2 stores a task's function as a dotted
path: chunks queued and schedules made before the tasks moved to voyage/runs/tasks.py name
`voyage.tasks.run_chunk` and `voyage.tasks.rescue_task`, and must still run. New code imports
voyage.runs.tasks; nothing else belongs here."""
from voyage.runs.tasks import rescue_task, run_chunk  # noqa: F401  (stored task paths)
