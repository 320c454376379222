"""A run's model calls, between the gateway (which knows no database) and whoever calls a model:
choosing the gateway a run talks to (`factory`), recording each call as an LLMCall row (`record`),
answering from another run's recorded calls (`replay`), and what a run's calls used (`usage`)."""
