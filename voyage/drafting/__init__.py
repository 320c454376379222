"""Drafting a world from a paragraph (`manage.py scenario draft`, the admin's "Draft a world"):
a model (the `author` route) writes the scenario file in stages, the import's checker and the
playability checks judge it, repair rounds send each problem back to the stage that owns it, an
offline day in a scratch database (scratch.py) proves it runs, and only then may it be installed.
The admin's drafts run on the worker as DraftJobs (jobs.py)."""
