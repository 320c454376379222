"""How far the draft checker can be trusted on this ask: defects planted in the scripted world of
the same paragraph and sizes, one at a time, and whether the checker names each by its rule. A
checker that misses one says so in the report. Pure."""
from __future__ import annotations

import copy
from dataclasses import asdict, dataclass

from world.drafting.check import draft_problems
from world.drafting.limits import DraftAsk
from world.drafting.playability import OWN_WORDS, REACHABLE, RUNG_REACHABLE, VOICE_COMPLETE
from world.drafting.scripted import scripted_world
from world.rules.scenario_check import KNOWN_ROOMS, SPOUSES


def _unknown_exit(d):
    d["exits"][-1][1] = "nowhere"


def _one_sided_spouse(d):
    d["personas"][1]["spouse"] = None


def _unknown_action(d):
    d["rungs"][1]["allowed_actions"].append("fly")


def _missing_voice(d):
    del d["voice"]["room_kind"]


def _gate_out_of_reach(d):
    d["exits"] = [e for e in d["exits"] if d["rooms"][-1]["key"] not in e]
    d["props"][0]["room"] = d["rooms"][-1]["key"]


def _foreign_word(d):
    d["voice"]["room_kind"] = "a cabin of the liner"


# (what is planted, how, the rule the checker must name)
PLANTED = (("an exit to an unknown room", _unknown_exit, KNOWN_ROOMS),
           ("a one-sided spouse", _one_sided_spouse, SPOUSES),
           ("a rung allowing an unknown action", _unknown_action, "allowed values"),
           ("a missing voice key", _missing_voice, VOICE_COMPLETE),
           ("a gating prop out of its owner's reach", _gate_out_of_reach, RUNG_REACHABLE),
           ("a home cut off", _gate_out_of_reach, REACHABLE),
           ("the default world's words", _foreign_word, OWN_WORDS))


@dataclass(frozen=True)
class CheckerTrust:
    planted: int
    found: int
    missed: tuple[str, ...]

    def as_dict(self) -> dict:
        return {**asdict(self), "missed": list(self.missed)}

    def __str__(self):
        said = f"checker: found {self.found} of {self.planted} planted defects"
        return said + (f"; MISSED: {', '.join(self.missed)}" if self.missed else "")


def checker_trust(ask: DraftAsk, check=draft_problems) -> CheckerTrust:
    """`check`: (data, ask) -> (text, problems), the draft checker (another one, to test a bad judge)."""
    sound = scripted_world(ask)
    missed = []
    for what, plant, rule in PLANTED:
        data = copy.deepcopy(sound)
        plant(data)
        if not any(p.rule == rule for p in check(data, ask)[1]):
            missed.append(what)
    return CheckerTrust(len(PLANTED), len(PLANTED) - len(missed), tuple(missed))
