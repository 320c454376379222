"""A chat-completions server on 127.0.0.1 that drafts worlds as a flawed model would, for the tests
of `scenario draft` (built on voyage/bench/fake_openai_server.py).

Its good world is the scripted draft of the paragraph (world/drafting/scripted.py). Its first draft
of each stage breaks a known rule: an exit to an unknown room (which cuts the last home off), a
one-sided spouse, a rung allowing an unknown action, a missing voice key, a name prop laid where its
owner cannot walk. A repair round gets the stage right when, and only when, the request carries the
checker's own message about the flaw (`FIXED_BY`); `repairs=False` never does; `flawed` names the
stages whose first draft is flawed (all five by default). `mode` answers every
call with broken JSON or a refusal instead.
"""
from __future__ import annotations

import copy
import json
import re

from voyage.bench.fake_openai_server import FakeOpenAI
from world.drafting.limits import DraftAsk
from world.drafting.scripted import scripted_world
from world.drafting.stages import stage_of

STAGE = re.compile(r"Now the stage '(\w+)'")
REPAIR = "The world's checker read the whole draft"
# stage -> words of the checker's message that name its flaw
FIXED_BY = {
    "premise": "voice.room_kind: missing",
    "rooms": "the exit names an unknown room 'nowhere'",
    "personas": "as spouse, but",
    "props": "where no way leads from their home",
    "rungs": "unknown action 'fly'",
}
REFUSAL = "I'm sorry, but I can't help with creating that."


class DraftingServer(FakeOpenAI):
    def __init__(self, ask: DraftAsk, repairs: bool = True, mode: str = "", flawed=tuple(FIXED_BY), **kwargs):
        super().__init__(**kwargs)
        self.good = scripted_world(ask)
        self.repairs, self.mode, self.flawed_stages = repairs, mode, tuple(flawed)

    def _content(self, body: dict, fault: str | None) -> str:
        text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        if self.mode == "broken_json":
            return '{"slug": "half-written", "name": "A world that'
        if self.mode == "refusal":
            return REFUSAL
        stage = STAGE.search(text).group(1)
        fixed = self.repairs and REPAIR in text and FIXED_BY.get(stage, "\0") in text
        answer = stage_of(self.good, stage) if fixed else self.flawed(stage)
        return json.dumps(answer)

    def flawed(self, stage: str) -> dict:
        good = copy.deepcopy(stage_of(self.good, stage))
        if stage not in self.flawed_stages:
            return good
        if stage == "premise":
            del good["voice"]["room_kind"]
        elif stage == "rooms":
            good["exits"][-1] = {"a": good["exits"][-1]["b"], "b": "nowhere"}  # the last home, now cut off
        elif stage == "personas":
            good["personas"][1]["spouse"] = None  # the first names the second; the second names nobody
        elif stage == "props":
            last_home = self.good["rooms"][-1]["key"]
            good["props"][0]["room"] = last_home  # the first person's name prop, out of their reach
        elif stage == "rungs":
            good["rungs"][1]["allowed_actions"].append("fly")
        return good
