"""The admin of the voyage app's own tables. Django's autodiscovery imports `voyage.admin`; importing
each module registers its pages: runs, model profiles, the event log and model calls (`tables`, with
the export and fork actions of `export` and the forms of `run_forms`), API tokens (`tokens`) and draft jobs (`drafts`, beside the "Draft a world" pages)."""
from voyage.admin import drafts, tables, tokens  # noqa: F401  (each registers its ModelAdmins)
