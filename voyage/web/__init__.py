"""The staff dashboards: server-rendered pages (one module per page) over the run's tables.

- access.py    who may see a page or open a websocket (staff only)
- runs.py      the runs list, with start / pause / resume / stop
- overview.py  one run: clock, ship map, event feed, rungs, model usage, time travel
- shipmap.py   where rooms and agent markers sit on the map (pure)
- timetravel.py  the ship as it was after any tick, folded from the event log (pure)
- feed.py      one event or model-call row as the feed shows it (page and websocket alike)
- costs.py     latency percentiles and the projected cost of the rest of a run (pure)

Every word an agent says, thinks or writes is model output: templates keep autoescaping, and the
JavaScript in static/web/ inserts it with textContent only.
"""
