"""The offline policy drafting a world: each stage of `scenario draft` answered from the scripted
world of the paragraph (world/drafting/scripted.py), deterministic and labelled scripted. A repair
round gets the same stage again: the scripted world keeps every rule, so it never needs one."""
from __future__ import annotations

import json
from dataclasses import dataclass

from world.drafting.limits import DraftAsk
from world.drafting.scripted import scripted_world
from world.drafting.stages import stage_of


@dataclass(frozen=True)
class DraftHints:
    """What the offline policy drafts from: the stage asked for and the storyteller's ask."""

    stage: str
    ask: DraftAsk


def draft_stage(hints: DraftHints) -> str:
    return json.dumps(stage_of(scripted_world(hints.ask), hints.stage), ensure_ascii=False)
