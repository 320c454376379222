"""Memory through a real offline voyage (first night and the dawn after), jobs run inline: dreams
and diary at nightfall, the dream on waking, trust calls and their labels in rung-1 prompts,
reflections with evidence and depth, soul entries and the stable order in every action prompt, and
privacy on every new path."""
import re
from collections import Counter

import pytest

from memories.context import DREAM_HEADER, HOT_HEADER, LOG_HEADER, RECALL_HEADER, SUMMARIES_HEADER, dream_line
from memories.models import DiaryEntry, Dream, Memory, MemorySummary, TrustEntry, TrustHistory
from memories.recall import recall
from memories.working import DreamLine
from tests.engine_helpers import new_run
from tests.memory_helpers import jobs_inline, secrets_in
from voyage.engine.runner import advance
from voyage.models import Event, LLMCall, Run
from world.models import AgentState, SoulEntry

NIGHTFALL_TICK = 319
TRUST_LABELS = ("ally", "suspect", "rival")  # only a trust call gives these; meeting gives acquaintance/spouse


@pytest.fixture(scope="module", params=[Run.SEED_LAYOUT, Run.CACHED_LAYOUT])
def voyage(request, django_db_setup, django_db_blocker):
    """The same voyage in each context layout: every test here, privacy included, runs on both."""
    with django_db_blocker.unblock():
        run = new_run(compaction_memory_count=60, target_ticks=482, name="memory voyage",
                      context_layout=request.param)
        with jobs_inline():
            advance(run, 482)
        yield Run.objects.get(pk=run.pk)
        Run.objects.filter(pk=run.pk).delete()


pytestmark = pytest.mark.django_db


def action_calls(run, **filters):
    return LLMCall.objects.filter(run=run, purpose="action", **filters).order_by("id")


def test_a_nights_sleep_yields_a_dream_and_a_diary_entry_for_every_living_agent(voyage):
    living = AgentState.objects.filter(run=voyage, alive=True)
    assert living.count() >= 30
    for agent in living:
        assert Dream.objects.filter(agent=agent, tick=NIGHTFALL_TICK).exists(), agent
        [entry] = DiaryEntry.objects.filter(agent=agent)
        assert entry.date == voyage.scenario.start_date and entry.day == 1
        night = Memory.objects.get(agent=agent, tick=NIGHTFALL_TICK, text__startswith="Night falls")
        assert entry.mood and entry.text and f"in the {entry.location.name}." in night.text
    dream = Dream.objects.filter(run=voyage, tick=NIGHTFALL_TICK).first()
    assert dream.identity and dream.places and dream.people  # three parts


def test_the_latest_dream_is_in_the_context_on_waking(voyage):
    woke = action_calls(voyage, tick__gte=480)
    assert woke.exists()
    for call in woke[:40]:
        dream = Dream.objects.filter(agent_id=call.agent_id, tick__lt=call.tick).order_by("-tick").first()
        system, user = call.prompt[0]["content"], call.prompt[1]["content"]
        if voyage.context_layout == Run.CACHED_LAYOUT:  # the night's dream, in the log where it was dreamt
            assert dream_line(DreamLine(dream.id, dream.tick, dream.text)) in user.split("\n")
            assert dream.identity not in system and DREAM_HEADER not in system
        else:
            assert DREAM_HEADER in system and dream.text in system


def test_trust_calls_grow_the_history_and_their_labels_reach_rung_1_prompts(voyage):
    assert LLMCall.objects.filter(run=voyage, purpose="trust", outcome="ok").exists()
    judged = TrustHistory.objects.filter(entry__run=voyage).exclude(rationale="first met")
    assert judged.count() > 50
    grown = [e for e in TrustEntry.objects.filter(run=voyage) if e.history.count() >= 2]
    assert grown and all(e.assessed_tick >= 0 for e in grown)
    people = re.compile(r"People here: ([^\n]*)\.")
    labelled = re.compile(r"([A-Z][\w.' -]+?) \((" + "|".join(TRUST_LABELS) + r")\)")
    names = dict(AgentState.objects.filter(run=voyage).values_list("persona__display_name", "id"))
    checked = 0
    for call in action_calls(voyage, tick__gte=15).iterator():
        line = people.search(call.prompt[1]["content"])
        for name, label in labelled.findall(line.group(1)) if line else ():
            # the label shown is the one the agent's own trust call gave that person, before this call
            given = TrustHistory.objects.filter(entry__agent_id=call.agent_id, entry__other_id=names[name],
                                                tick__lte=call.tick).order_by("-tick", "-id").first()
            assert given is not None and given.label == label, (call.id, name, label)
            checked += 1
    assert checked > 20, "too few rung-1 prompts showed a label a trust call gave"


def test_reflections_carry_existing_evidence_and_the_right_depth(voyage):
    reflections = list(Memory.objects.filter(run=voyage, kind="reflection"))
    assert len(reflections) > 50
    for r in reflections[:200]:
        assert r.evidence, r
        evidence = list(Memory.objects.filter(id__in=r.evidence))
        assert len(evidence) == len(r.evidence) and all(e.agent_id == r.agent_id and e.id < r.id for e in evidence)
        assert r.depth == max(e.depth for e in evidence) + 1
        assert 1 <= r.importance <= 10
    assert LLMCall.objects.filter(run=voyage, purpose="importance").count() == len(reflections)


def test_soul_entries_are_in_every_action_prompt(voyage):
    soul = {}
    for entry in SoulEntry.objects.filter(persona__scenario=voyage.scenario):
        soul.setdefault(entry.persona_id, []).append(entry.text)
    persona_of = dict(AgentState.objects.filter(run=voyage).values_list("id", "persona_id"))
    calls = list(action_calls(voyage))
    assert len(calls) > 4000
    for call in calls[::7]:
        system = call.prompt[0]["content"]
        assert all(s in system for s in soul[persona_of[call.agent_id]])


def test_action_prompts_keep_the_stable_order(voyage):
    full = 0
    for call in action_calls(voyage, tick__gte=200)[::5]:
        text = "\n\n".join(m["content"] for m in call.prompt)
        if voyage.context_layout == Run.CACHED_LAYOUT:  # the log first, then what changes every turn
            marks = ["rung", "What you hold true", SUMMARIES_HEADER, DREAM_HEADER, LOG_HEADER, RECALL_HEADER,
                     "You are in the"]
            clock = text.rindex("\n\nIt is ")  # the time line (summaries and rows may say "It is" too)
            assert HOT_HEADER not in text and text.index(LOG_HEADER) < clock < text.rindex("You are in the")
        else:
            marks = ["rung", "What you hold true", SUMMARIES_HEADER, DREAM_HEADER, RECALL_HEADER, "You are in the",
                     HOT_HEADER]
            assert text.index("It is ") < text.index("You are in the") < text.index(HOT_HEADER)
        found = [text.find(m) for m in marks]
        present = [i for i in found if i >= 0]
        assert present == sorted(present), call.id
        full += all(i >= 0 for i in found)
    assert full > 20  # prompts with every section present were checked


def test_summaries_cover_their_rows_and_eras_fold(voyage):
    level0 = MemorySummary.objects.filter(run=voyage, level=0)
    assert level0.count() > 33
    for s in level0[:100]:
        assert Memory.objects.filter(agent_id=s.agent_id, id__range=(s.first_row, s.last_row)).count() == s.row_count
    assert MemorySummary.objects.filter(run=voyage, level__gt=0).exists()


# Rows an agent perceived, did or was told directly; reflections and bulletins are written by a model
# from other rows, so they are checked as outputs rather than trusted as sources.
WRITTEN_KINDS = ("reflection", "bulletin")


def _allowed(run):
    allowed = {}
    for aid, text in Memory.objects.filter(run=run).exclude(kind__in=WRITTEN_KINDS).values_list("agent_id", "text"):
        allowed.setdefault(aid, set()).update(secrets_in(text))
    return allowed


def test_nothing_withheld_reaches_summaries_dreams_diary_trust_reflections_bulletins_or_prompts(voyage):
    """Every secret (a spoken code, a monologue id) in any model-written output or any prompt must be
    one its agent perceived directly. The bulletin's prompt belongs to nobody: it may hold none."""
    allowed = _allowed(voyage)
    outputs = []
    outputs += MemorySummary.objects.filter(run=voyage).values_list("agent_id", "text")
    outputs += [(d.agent_id, d.text) for d in Dream.objects.filter(run=voyage)]
    outputs += DiaryEntry.objects.filter(run=voyage).values_list("agent_id", "text")
    outputs += TrustHistory.objects.filter(entry__run=voyage).values_list("entry__agent_id", "rationale")
    outputs += Memory.objects.filter(run=voyage, kind__in=WRITTEN_KINDS).values_list("agent_id", "text")
    purposes = Counter()
    for call in LLMCall.objects.filter(run=voyage).iterator():
        outputs.append((call.agent_id, "\n".join(m["content"] for m in call.prompt)))
        purposes[call.purpose] += 1
    assert {"reflection", "bulletin", "compaction", "dream", "diary", "trust", "importance"} <= set(purposes)
    seen = Counter()
    for agent_id, text in outputs:
        found = secrets_in(text)
        leaked = found - allowed.get(agent_id, set())
        assert not leaked, (agent_id, leaked)
        seen[agent_id is None] += len(found)
    assert seen[False] > 1000  # the outputs do quote codes and thoughts: the check is not vacuous
    reflections = Memory.objects.filter(run=voyage, kind="reflection").values_list("text", flat=True)
    assert sum(len(secrets_in(t)) for t in reflections) > 50  # nor for reflections


def test_recall_never_finds_words_an_agent_did_not_hear(voyage):
    allowed = _allowed(voyage)
    whispers = Event.objects.filter(run=voyage, kind="communicate", data__volume="whisper")[:30]
    checked = 0
    for event in whispers:
        code = re.search(r"Remember: ([a-z]+-\d{4})", event.text).group(1)
        for agent_id, secrets in allowed.items():
            hits = recall(agent_id, code, k=5)
            if code in secrets:
                continue
            assert not any(code in h.text for h in hits)
            checked += 1
    assert checked > 100
