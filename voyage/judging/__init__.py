"""Judging a run: a model (any profile, the `judge` route; the offline policy judges too, scripted)
scores evidence packets built from what the run committed against a rubric, and proves itself on
every use — repeatability, order bias, agreement between judges, planted defects — ending in a
verdict in plain words. See docs/judging.md."""
