"""Total recall: a planted old row is found by its words, only in its own agent's stream, and the
context builder brings it back when the situation names what it mentions."""
import pytest

from memories.context import RECALL_HEADER, action_messages, cues_for
from memories.recall import recall
from tests.engine_helpers import new_run
from tests.memory_helpers import plant, world_and_writer
from world.models import Prop

pytestmark = pytest.mark.django_db


def test_recall_finds_a_planted_old_row_by_its_words_in_its_own_stream_only():
    run = new_run()
    me, other = run.agents.order_by("id")[:2]
    plant(run, me.id, [f"Routine moment {i} on the promenade." for i in range(400)])
    [planted] = plant(run, me.id, ["You find a tarnished silver locket engraved with the initials R.W."], tick=5,
                      importance=6)
    plant(run, me.id, [f"Another routine moment {i}." for i in range(400)], tick=9)
    plant(run, other.id, ["Someone else's silver locket, glimpsed in a dream."], tick=9)
    hits = recall(me.id, "silver locket")
    assert [h.id for h in hits] == [planted.id]
    assert recall(me.id, "locket", before_id=planted.id) == []  # newer rows only: nothing older matches
    assert [h.text for h in recall(other.id, "locket")] == ["Someone else's silver locket, glimpsed in a dream."]
    assert recall(me.id, "zeppelin") == []


def test_the_context_builder_recalls_an_old_row_about_an_item_in_the_room():
    run = new_run()
    world, w = world_and_writer(run)
    agent = next(a for a in world.agents.values() if world.props_by_room[a.location_id])
    prop = world.props_by_room[agent.location_id][0]
    plant(run, agent.id, [f"You once saw the {prop.name} and could not forget it."], importance=7)
    plant(run, agent.id, [f"A passing moment {i}." for i in range(80)], tick=3)
    agent.rung = 1
    agent.save()
    world, w = world_and_writer(run)
    a = world.agents[agent.id]
    situation = world.situation(a)
    user = action_messages(world, a, situation, 10, cues_for(world, a, 10))[1]["content"]
    assert RECALL_HEADER in user and f"You once saw the {prop.name}" in user
    assert user.index(RECALL_HEADER) < user.index("You are in the")
    assert Prop.objects.filter(pk=prop.pk).exists()


# --- the index by agent (memories/fts.py) ---------------------------------------------------------
CORPUS = [
    "You wake with a start in the Boat Deck. You cannot remember who you are, or how you came here.",
    "Yesterday the young steward's ponies were running, hopping; generalisation caresses everything.",
    "Déjà vu at the café: Cafe\u0301s, Straße, naïve Zoë — don't foo_bar the Salon (12), v1.2, £10, a+b=c!",
    "Ⅲ 你好世界 and yttrium yes yellow yearning; the Marconi room's 3rd-class passengers.",
]


def _matches(texts, transform, words):
    """The rows each query word matches in an index of `texts` as `transform` writes them."""
    import sqlite3

    from memories.recall import _fts_phrase
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(words, content='', tokenize='porter unicode61')")
    conn.executemany("INSERT INTO t(rowid, words) VALUES (?, ?)", [(i, transform(s)) for i, s in enumerate(texts)])
    return {w: [i for (i,) in conn.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid",
                                           (_fts_phrase(transform(w)),))] for w in words}


def test_tagged_words_match_the_rows_the_bare_words_match():
    """Every word a query can ask for (memories.recall.terms_of) matches the same rows in the index by
    agent as in an index of the bare text: the tag changes neither where words split nor which
    words the porter stemmer takes for one (a tag of consonants leaves the stemmer's measure as it
    is). One difference, for the better: the bare stemmer cuts a few three-letter words to two
    letters and so matches them with two-letter words ("one" with "on"); tagged, it does not."""
    from memories.fts import tagged
    from memories.recall import terms_of
    from world.models import Scenario

    texts = list(CORPUS)
    for scenario in Scenario.objects.all():
        for persona in scenario.personas.all():
            texts += [persona.history, persona.secret, persona.fear]
        texts += [room.description for room in scenario.rooms.all() if room.description]
    words = sorted({w for text in texts for w in terms_of(text)})
    assert len(texts) > 20 and len(words) > 300
    bare = _matches(texts, lambda s: s, words)
    assert sum(map(len, bare.values())) > len(words)
    tagged_matches = _matches(texts, lambda s: tagged(12, s), words)
    differ = [w for w in words if tagged_matches[w] != bare[w]]
    assert all(len(w) == 3 and set(tagged_matches[w]) < set(bare[w]) and tagged_matches[w] for w in differ), differ
    assert len(differ) <= len(words) // 100, differ


def test_a_word_that_spells_another_agents_tag_does_not_reach_that_agent():
    """Model output is untrusted: a row of one agent that literally contains another agent's tagged
    word is still that agent's row only."""
    run = new_run()
    me, other = run.agents.order_by("id")[:2]
    plant(run, me.id, [f"q{other.id}xlocket q{other.id}x\u2e2flocket"])
    [own] = plant(run, other.id, ["A locket of my own."], tick=3)
    assert [h.id for h in recall(other.id, "locket")] == [own.id]
