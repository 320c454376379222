"""Trust calls (reasoning on): at an agent's reflections and at nightfall, one call per agent about
everyone it dealt with since its last assessment (entries touched since `assessed_tick`). Each
judgement updates the ledger entry and is kept in its history. The prompt shows the agent's own
rows that name each person — nothing else — so no withheld word can reach a rationale. An agent whose
rung does not know people's names makes no trust calls (its ledger still counts meetings); a person it
met only while not knowing names is judged once it has met them again knowing names."""
from __future__ import annotations

from memories.ablation import off
from memories.identity import identity_text
from memories.models import TrustHistory
from memories.writing import TRUST, messages
from voyage.gateway.base import TRUST as TRUST_PURPOSE, ModelRequest, answered
from voyage.gateway.hints import TrustHints
from voyage.gateway.json_extract import parse_json_object
from voyage.models import LLMCall
from world.rules.ladder import PEOPLE_NAMES

LINES_PER_PERSON = 6


def dealt_with(world, agent, entries_of: dict | None = None) -> list:
    """The entries touched since their last assessment, of people the agent has met knowing names.
    `entries_of`: the ledger's entries by agent (`entries_by_agent`), built once for many agents."""
    own = entries_of.get(agent.id, ()) if entries_of is not None else \
        (e for (aid, _), e in world.trust.items() if aid == agent.id)
    return sorted((e for e in own if e.known_by_name and e.updated_tick > e.assessed_tick),
                  key=lambda e: world.agents[e.other_id].persona.display_name)


def entries_by_agent(world) -> dict[int, list]:
    """The ledger's entries grouped by whose they are, in the ledger's order: the world keeps them so
    (RunWorld.trust_of), else one pass over it, so assessing everyone costs O(entries), not O(agents
    x entries), and one agent reflecting alone (out of order) not O(entries)."""
    if (kept := getattr(world, "trust_of", None)) is not None:
        return kept
    grouped: dict[int, list] = {}
    for (aid, _), e in world.trust.items():
        grouped.setdefault(aid, []).append(e)
    return grouped


def assess(world, w, gateway, agents, lines_of) -> int:
    """`lines_of(agent)` gives the agent's own memory texts to draw on. Returns the entries judged."""
    return answered(assessing(world, w, agents, lines_of), gateway)


def assessing(world, w, agents, lines_of):
    """`assess` as steps (voyage.gateway.base.answered): yields its calls, is sent their answers."""
    if off(world.run, "trust"):
        return 0
    asked = []
    entries_of = entries_by_agent(world)
    for a in agents:
        if not a.alive or not world.knows(a, PEOPLE_NAMES):
            continue
        entries = dealt_with(world, a, entries_of)
        if not entries:
            continue
        own = lines_of(a)
        others, blocks = [], []
        for e in entries:
            name = world.agents[e.other_id].persona.display_name
            lines = tuple([t for t in own if name in t][-LINES_PER_PERSON:])
            others.append((name, e.label, e.score, e.interaction_count, lines))
            blocks.append(f"{name} — now: {e.label} ({e.score:+.2f}), met {e.interaction_count} times.\n"
                          + ("\n".join(f"- {t}" for t in lines) or "- (no memory names them)"))
        request = ModelRequest(purpose=TRUST_PURPOSE, messages=messages(identity_text(a, world), TRUST, blocks),
                               tick=w.tick, agent_id=a.id, agent_key=a.persona.key, hints=TrustHints(tuple(others)))
        asked.append((a, entries, request))
    answers = (yield [r for _, _, r in asked]) if asked else []
    judged = 0
    for (a, entries, request), answer in zip(asked, answers):
        verdicts = parse_verdicts(answer.text, [world.agents[e.other_id].persona.display_name for e in entries])
        if verdicts is None:
            w.call(request, answer, LLMCall.ERROR, answer.error or "not a JSON object of verdicts")
            continue
        w.call(request, answer, LLMCall.OK)
        for e in entries:
            e.assessed_tick = w.tick
            v = verdicts.get(world.agents[e.other_id].persona.display_name)
            if v is not None:
                e.score, e.label, e.emotional_tone, e.rationale = v
                w.history.append((e, TrustHistory(tick=w.tick, score=e.score, label=e.label,
                                                  emotional_tone=e.emotional_tone, rationale=e.rationale)))
                judged += 1
            w.changed(e)
    return judged


def parse_verdicts(text: str | None, names: list[str]) -> dict | None:
    """Validate at the boundary: known names only, score clamped to [-1, 1], fields clipped."""
    data = parse_json_object(text)
    if data is None:
        return None
    out = {}
    for name in names:
        v = data.get(name)
        if not isinstance(v, dict):
            continue
        try:
            score = max(-1.0, min(1.0, float(v.get("score", 0))))
        except (TypeError, ValueError):
            continue
        label = str(v.get("label") or "acquaintance").strip()[:40] or "acquaintance"
        out[name] = (score, label, str(v.get("emotional_tone") or "")[:80], str(v.get("rationale") or "")[:500])
    return out
