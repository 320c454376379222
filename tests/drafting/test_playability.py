"""The checks a drafted world must pass beyond the file's rules, each on a sound scripted world with
one defect planted, plus the paragraph's nouns and a bad ask. Pure: no database."""
import copy

import pytest

from world.drafting.check import draft_problems
from world.drafting.limits import DraftAsk, ask_problems
from world.drafting.playability import OWN_WORDS, REACHABLE, RUNG_REACHABLE, SIZES, VOICE_COMPLETE
from world.drafting.scripted import scripted_world
from world.drafting.words import nouns, place_name

ASK = DraftAsk("A boarding school on the moors, with the chapel, the old dormitory and the boiler room of Ashcombe.",
               people=6, rooms=8)


def problems_of(data, ask=ASK):
    return draft_problems(data, ask)[1]


def test_the_scripted_world_keeps_every_rule_and_is_the_same_each_time():
    assert problems_of(scripted_world(ASK)) == []
    assert scripted_world(ASK) == scripted_world(ASK)


def test_the_scripted_world_is_built_from_the_paragraphs_nouns():
    assert nouns(ASK.paragraph) == ["boarding", "moors", "chapel", "dormitory", "boiler"]  # past "old"
    assert place_name(ASK.paragraph) == "Ashcombe"
    names = [r["name"] for r in scripted_world(ASK)["rooms"]]
    assert "The Chapel Walk" in names and scripted_world(ASK)["slug"] == "ashcombe-draft"


def planted(change) -> list:
    data = copy.deepcopy(scripted_world(ASK))
    change(data)
    return problems_of(data)


def test_a_home_cut_off_is_found_and_named_by_its_key_path_and_line():
    def cut(d):
        d["exits"] = [e for e in d["exits"] if "home_2" not in e] + [["home_2", "home_2b"]]
        d["rooms"].append({**d["rooms"][-1], "key": "home_2b", "name": "Annexe"})
    found = planted(cut)
    assert any(p.rule == REACHABLE and "'home_2'" in p.message for p in found)
    assert all(p.line for p in found)


def test_a_gating_prop_out_of_its_owners_reach_is_found():
    def lonely(d):
        d["rooms"].append({**d["rooms"][0], "key": "attic", "name": "Attic"})
        d["exits"].append(["attic", "attic_b"])
        d["rooms"].append({**d["rooms"][0], "key": "attic_b", "name": "Attic Stair"})
        d["props"][0]["room"] = "attic"
    found = planted(lonely)
    assert any(p.rule == RUNG_REACHABLE and p.path == "props[0].room" for p in found)


def test_a_rung_with_no_gate_cannot_be_reached():
    assert [p.path for p in planted(lambda d: d["rungs"][2].update(gate=None)) if p.rule == RUNG_REACHABLE] == \
        ["rungs[2].gate"]


def test_a_missing_voice_or_phrase_key_is_found():
    def drop(d):
        del d["voice"]["nightfall_event"]
        del d["phrasebook"]["shouts"]
    assert {p.path for p in planted(drop) if p.rule == VOICE_COMPLETE} == {"voice.nightfall_event", "phrasebook.shouts"}


def test_the_default_worlds_words_are_found_unless_the_paragraph_uses_them():
    def ship(d):
        d["voice"]["room_kind"] = "a cabin aboard"
    assert [(p.path, p.rule) for p in planted(ship) if p.rule == OWN_WORDS] == [("voice.room_kind", OWN_WORDS)]
    aboard = DraftAsk(ASK.paragraph + " Everyone aboard sleeps in a cabin.", people=6, rooms=8)
    data = scripted_world(aboard)
    data["voice"]["room_kind"] = "a cabin aboard"
    assert not [p for p in problems_of(data, aboard) if p.rule == OWN_WORDS]


def test_more_people_than_asked_is_found():
    small = DraftAsk(ASK.paragraph, people=4, rooms=8)
    assert [p.rule for p in problems_of(scripted_world(ASK), small) if p.rule == SIZES] == [SIZES]


@pytest.mark.parametrize("ask, said", [
    (DraftAsk(""), "empty"), (DraftAsk("x" * 4001), "at most 4000"), (DraftAsk("a hut", people=25), "--people 25"),
    (DraftAsk("a hut", rooms=31), "--rooms 31"), (DraftAsk("a hut", people=10, rooms=5), "at least 6 rooms"),
    (DraftAsk("a hut", repair_rounds=9), "--repair-rounds 9"),
])
def test_a_bad_ask_says_what_is_wrong(ask, said):
    assert any(said in p for p in ask_problems(ask))


def test_the_checker_finds_every_planted_defect_and_a_bad_checker_is_caught_missing_some():
    from world.drafting.check import draft_problems
    from world.drafting.selfcheck import PLANTED, checker_trust

    assert checker_trust(ASK).as_dict() == {"planted": len(PLANTED), "found": len(PLANTED), "missed": []}

    def format_only(data, ask):  # a judge that reads the file's rules and skips the playability checks
        text, problems = draft_problems(data, ask)
        return text, [p for p in problems if p.rule not in (REACHABLE, RUNG_REACHABLE, VOICE_COMPLETE, OWN_WORDS)]
    bad = checker_trust(ASK, format_only)
    assert bad.found == 3 and "a missing voice key" in bad.missed and "MISSED" in str(bad)
