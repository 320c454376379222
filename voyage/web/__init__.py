"""The staff dashboards: server-rendered pages (one module per page) over the run's tables.

- access.py    who may see a page or open a websocket (staff only)
- runs.py      the runs list, with start / pause / resume / stop
- overview.py  one run: clock, ship map, event feed, rungs, model usage, time travel
- shipmap.py   where rooms and agent markers sit on the map (pure)
- feed.py      one event or model-call row as the feed shows it (page and websocket alike)
- consumers.py the live feed over a websocket (routed by voyage/routing.py)
- costs.py     latency percentiles and the projected cost of the rest of a run (pure)
- rooms.py, agents.py, charts.py (inspect_urls.py)  room transcripts, the agent inspector, pictures
- instruments.py, surveys.py (instrument_urls.py)  the interview, intervention and survey forms
- studies.py, study_report.py (studies_urls.py)  the studies pages and a study's report

The ship as it stood after any tick is folded by voyage/records/timetravel.py.

Every word an agent says, thinks or writes is model output: templates keep autoescaping, and the
JavaScript in static/web/ inserts it with textContent only.
"""
