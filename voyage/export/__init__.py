"""Runs that travel: a run as a fixture `loaddata` loads anywhere (fixture.py, with memory-row
references made portable by rows.py), and tidy CSV tables for analysis (tables.py)."""
