"""Who an agent knows itself to be, gated by its rung: the text that opens every prompt it is given,
whether the tick builds it (from the run's world in memory) or a memory job does (from the database).
Soul entries always come with it: they are never compacted."""
from __future__ import annotations

from voyage.instruments.world_changes import persona_of_run
from world.models import AgentState, SoulEntry
from world.rules.ladder import FEAR, HISTORY, OWN_NAME, SECRET, SETTING, rung_spec


def identity_text(agent: AgentState, world=None, *, upto_tick: int | None = None, rungs=None) -> str:
    """`world` is the tick's RunWorld when there is one; a job passes none and the scenario, its rungs
    and the soul entries are read from the database (load the agent with `agent_for_job`), and the
    persona's texts as the run's interventions changed them (up to `upto_tick`: an interview at T).
    `rungs`: the scenario's rung specs when the caller already read them (a dream job, once for all)."""
    if world is not None:
        rungs, premise, soul = world.rungs, world.scenario.premise, world.soul.get(agent.persona_id, [])
    else:
        scenario = agent.run.scenario
        rungs, premise = rungs if rungs is not None else scenario.rung_specs(), scenario.premise
        soul = list(SoulEntry.objects.filter(persona_id=agent.persona_id).values_list("text", flat=True))
    persona = agent.persona if world is not None else persona_of_run(agent, upto_tick)
    spec = rung_spec(rungs, agent.rung)
    known = spec.knows  # what this rung reveals: the scenario's rung row says
    parts = [f"Your state of mind — rung {spec.level}, {spec.name}: {spec.reveals}"]
    if OWN_NAME in known:
        parts.append(f"You are {persona.display_name}.")
    if SETTING in known:
        parts.append(premise)
    if not known & {OWN_NAME, SETTING}:
        parts.append("You do not know who you are, where you are, or when this is.")
    for fact, heading, text in ((HISTORY, "Your life on paper", persona.history), (FEAR, "What you fear", persona.fear),
                                (SECRET, "Your secret", persona.secret)):
        if fact in known:
            parts.append(f"{heading}: {text}")
    if soul:
        parts.append("What you hold true, whatever else you forget:\n" + "\n".join(f"- {s}" for s in soul))
    return "\n\n".join(parts)


def agent_for_job(agent_id: int) -> AgentState | None:
    """An agent's state row with what a memory job needs beside it (persona, run, scenario). Not the
    run's `leads`, which no job reads: out of order it holds every agent's lead, and a tick's jobs
    would decode it once each."""
    return (AgentState.objects.select_related("persona", "run__scenario").defer("run__leads")
            .filter(pk=agent_id).first())
