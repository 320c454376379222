"""An agent's strongest ties for the inspector: the people whose words it HEARD, and who HEARD its
words, most utterances first (both directions added, over the whole run so far: the speech graph of
voyage/studies/networks.py), with what its trust ledger holds about each."""
from __future__ import annotations

from collections import Counter

from memories.models import TrustEntry
from voyage.models import Event
from voyage.studies.networks import speech_graph, strongest_ties

TIES_SHOWN = 8


def ties_of(run, agent, seq: int, k: int = TIES_SHOWN) -> list[dict]:
    """`seq`: the run's latest event seq (feed.last_seq). The pairs are read from the run's talk, which
    only a new event changes, and the trust ledger, which only a tick's commit changes (with the run's
    tick): so the ties are kept in the cache under both, and the run's uuid (a database that reuses a
    deleted run's id never finds that run's ties)."""
    from django.core.cache import cache

    cache_key = f"voyage:ties:v1:{run.uuid}:{agent.pk}:{run.tick}:{seq}:{k}"
    return cache.get_or_set(cache_key, lambda: read_ties(run, agent, seq, k), timeout=3600)


def read_ties(run, agent, seq: int, k: int) -> list[dict]:
    key = agent.persona.key
    ties = strongest_ties(speech_graph([key], heard_pairs(run, agent, seq)), key, k)
    others = [o for o, _, _ in ties]
    names = dict(run.agents.filter(persona__key__in=others).values_list("persona__key", "persona__display_name"))
    trust = {o: (label, score) for o, label, score in TrustEntry.objects.filter(agent=agent, other__persona__key__in=others)
             .values_list("other__persona__key", "label", "score")}
    return [{"key": o, "name": names.get(o, o), "heard_from": heard_from, "heard_by": heard_by,
             "trust": trust.get(o)} for o, heard_from, heard_by in ties]


def heard_pairs(run, agent, seq: int) -> Counter:
    """(speaker, listener) -> utterances HEARD, for the pairs this agent is in. Reading them walks the
    run's talk, and only a new event can change them, so they are kept in the cache under the run's
    latest event seq (a tick's commit, an intervention's event: a new key, never a stale count),
    and the run's uuid (a database that reuses a deleted run's id never finds that run's pairs): a tick
    without a new event (a quiet night) does not read them again."""
    from django.core.cache import cache

    cache_key = f"voyage:heard-pairs:v1:{run.uuid}:{agent.pk}:{seq}"
    return cache.get_or_set(cache_key, lambda: count_heard(run, agent), timeout=3600)


def count_heard(run, agent) -> Counter:
    key = agent.persona.key
    pairs: Counter = Counter()
    spoken = Event.objects.filter(run=run, kind="communicate", actor=agent).values_list("data__delivered", flat=True)
    for delivered in spoken:
        for listener, mode in (delivered or {}).items():
            if mode == "HEARD":
                pairs[(key, listener)] += 1
    heard = (Event.objects.filter(run=run, kind="communicate", data__delivered__has_key=key).exclude(actor=agent)
             .values_list("actor__persona__key", "data__delivered"))
    for speaker, delivered in heard:
        if (delivered or {}).get(key) == "HEARD":
            pairs[(speaker, key)] += 1
    return pairs
