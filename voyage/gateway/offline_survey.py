"""The offline model's answer to a questionnaire: plainly scripted, deterministic (the run's seed, the
tick, the agent, each item's id), and built only from what the survey's prompt shows (SurveyHints).

An item of a standard instrument (its hint names the trait it measures) is answered from the
persona's trait vector with noise (offline_traits); a choice item about trust in others (the GSS's
TRUST and FAIR) gives its trusting answer with the probability of the leaning below. Otherwise its leaning on scales and numbers follows the agent's state as the prompt shows it: the share of the
people it knows that it holds as allies rather than suspects (none known: the middle), plus a seeded
wobble. Choices are seeded draws; a text answer says plainly that it is scripted."""
from __future__ import annotations

import json
import random
from dataclasses import dataclass

from voyage.gateway.offline_interview import CANNED
from voyage.gateway.offline_traits import trait_answer, trait_vector

TRUST_LEAN = "trust"  # a choice item about trust in others (its first option the trusting answer)
DEPENDS = 0.1  # the share answering a trust item's third option ("it depends") when it has one
WARM = ("ally", "friend", "bond", "acquaintance")
COLD = ("suspect", "rival", "enemy")


@dataclass(frozen=True)
class SurveyItemHint:
    id: str
    kind: str  # scale, choice, choices, number, text
    options: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    trait: str = ""  # a standard instrument's item: the domain it measures (offline_traits), and
    keyed: int = 0  # +1, or -1 for a reverse-keyed item


@dataclass(frozen=True)
class SurveyHints:
    items: tuple[SurveyItemHint, ...]
    subject: str  # its name as the prompt gives it, or ""
    clock: str
    lines: tuple[str, ...]  # its hot window as the prompt shows it, newest first
    trust_labels: tuple[str, ...] = ()  # the labels of the people the prompt lists
    persona: str = ""  # the persona key (an instrument's items are answered from its trait vector)


def leaning(labels: tuple[str, ...]) -> float:
    """0 (everyone it knows a suspect) to 1 (everyone an ally); 0.5 knowing no one."""
    warm = sum(1 for label in labels if label.lower() in WARM)
    cold = sum(1 for label in labels if label.lower() in COLD)
    return (warm + 1) / (warm + cold + 2)


def _answer(r: random.Random, item: SurveyItemHint, lean: float, h: SurveyHints):
    if item.kind == "scale" and item.trait:
        return trait_answer(r, trait_vector(h.persona)[item.trait], item.keyed, int(item.low), int(item.high))
    if item.kind == "scale":
        point = item.low + lean * (item.high - item.low) + r.uniform(-1.0, 1.0)
        return int(min(item.high, max(item.low, round(point))))
    if item.kind == "number":
        value = item.low + min(1.0, max(0.0, lean + r.uniform(-0.25, 0.25))) * (item.high - item.low)
        return int(round(value)) if float(item.low).is_integer() and float(item.high).is_integer() else round(value, 2)
    if item.kind == "choice" and item.trait == TRUST_LEAN:
        if len(item.options) > 2 and r.random() < DEPENDS:
            return item.options[2]
        return item.options[0] if r.random() < lean else item.options[1]
    if item.kind == "choice":
        return r.choice(item.options)
    if item.kind == "choices":
        picked = set(r.sample(item.options, r.randint(0, len(item.options))))
        return [o for o in item.options if o in picked]
    last = h.lines[0][:160] if h.lines else "nothing at all"
    return f"{CANNED} {h.subject or 'someone'}, {h.clock}. What I remember last: {last}"


def survey(rng: random.Random, h: SurveyHints) -> str:
    base = rng.getrandbits(64)  # one draw from the call's seeded stream; each item then its own
    lean = leaning(h.trust_labels)
    answers = {item.id: _answer(random.Random(f"{base}:{item.id}"), item, lean, h) for item in h.items}
    return json.dumps(answers, ensure_ascii=False)
