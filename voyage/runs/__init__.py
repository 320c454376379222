"""Running runs: a run's configuration and its parameters (`config`), starting, pausing, resuming
and stopping it (`control`), the worker's django-q2 tasks that advance it in chunks (`tasks`),
forking a run at a tick (`fork`), and how far along it is (`progress`, `state`)."""
