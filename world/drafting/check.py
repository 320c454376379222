"""A drafted world, checked as a file: the import's own checker (`read_scenario`, every problem
with key path, line and rule), then the playability checks. Pure."""
from __future__ import annotations

import dataclasses

from world.drafting.limits import DraftAsk
from world.drafting.playability import playability_problems
from world.rules.scenario_check import Problem
from world.scenarios.file_format import check_schema, key_lines, line_of, read_scenario
from world.scenarios.files import data_yaml


def draft_problems(data: dict, ask: DraftAsk) -> tuple[str, list[Problem]]:
    """The draft's file text and everything wrong with it (empty: it can be installed)."""
    text = data_yaml(data)
    _, problems = read_scenario(text)
    if not check_schema(data):  # the extra checks read a file whose keys and types hold
        lines = key_lines(text)
        problems += [dataclasses.replace(p, line=line_of(lines, p.path))
                     for p in playability_problems(data, ask.paragraph, ask.people, ask.rooms)]
    return text, problems
