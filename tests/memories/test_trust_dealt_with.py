"""Who an agent's trust call is about (memories/trust.py dealt_with): grouping the ledger by agent once
(issue 21: O(entries) per assessment, not O(agents x entries)) picks the same entries in the same order
as scanning the whole ledger for each agent."""
from types import SimpleNamespace as NS

from hypothesis import given, strategies as st

from memories.trust import dealt_with, entries_by_agent

NAMES = ["Anna", "Bert", "Clara", "Dora", "Emil"]


def world_of(rows):
    agents = {i: NS(id=i, persona=NS(display_name=NAMES[i])) for i in range(len(NAMES))}
    trust = {}
    for aid, other, known, updated, assessed in rows:
        if aid != other:
            trust[(aid, other)] = NS(other_id=other, known_by_name=known, updated_tick=updated, assessed_tick=assessed)
    return NS(agents=agents, trust=trust)


ROW = st.tuples(st.integers(0, 4), st.integers(0, 4), st.booleans(), st.integers(0, 5), st.integers(0, 5))


@given(st.lists(ROW, max_size=30))
def test_grouped_ledger_gives_the_same_entries_in_the_same_order(rows):
    world = world_of(rows)
    grouped = entries_by_agent(world)
    for agent in world.agents.values():
        assert dealt_with(world, agent, grouped) == dealt_with(world, agent)


def test_only_named_entries_touched_since_their_assessment_in_name_order():
    world = world_of([(0, 3, True, 4, 2), (0, 1, True, 3, 1), (0, 2, False, 5, 0), (0, 4, True, 2, 2),
                      (1, 0, True, 5, 0)])
    picked = dealt_with(world, world.agents[0], entries_by_agent(world))
    assert [e.other_id for e in picked] == [1, 3]
