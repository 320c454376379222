"""An agent's strongest ties for the inspector: the people whose words it HEARD, and who HEARD its
words, most utterances first (both directions added, over the whole run so far: the speech graph of
voyage/studies/networks.py), with what its trust ledger holds about each."""
from __future__ import annotations

from collections import Counter

from memories.models import TrustEntry
from voyage.models import Event
from voyage.studies.networks import speech_graph, strongest_ties

TIES_SHOWN = 8


def ties_of(run, agent, k: int = TIES_SHOWN) -> list[dict]:
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
    ties = strongest_ties(speech_graph([key], pairs), key, k)
    others = [o for o, _, _ in ties]
    names = dict(run.agents.filter(persona__key__in=others).values_list("persona__key", "persona__display_name"))
    trust = {o: (label, score) for o, label, score in TrustEntry.objects.filter(agent=agent, other__persona__key__in=others)
             .values_list("other__persona__key", "label", "score")}
    return [{"key": o, "name": names.get(o, o), "heard_from": heard_from, "heard_by": heard_by,
             "trust": trust.get(o)} for o, heard_from, heard_by in ties]
