"""The admin of the voyage app's own tables. Django's autodiscovery imports `voyage.admin`; importing
each module registers its pages: runs, model profiles, the event log and model calls (`tables`, with
the export and fork actions of `export` and the forms of `run_forms`), and API tokens (`tokens`)."""
from voyage.admin import tables, tokens  # noqa: F401  (each registers its ModelAdmins)
