"""The voyage app's management commands (commands/) and what they share: resolving `--run`
(run_arg.py), model-profile options (model_options.py) and fork options (fork_options.py)."""
