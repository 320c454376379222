"""Model health: whether a run's model is really playing, read from its recorded action calls
(never in the tick's hot path). `answers` reads one call, `shares` measures a set of them,
`warnings` says in plain words what the figures mean, `load` reads a run's calls from the database."""
