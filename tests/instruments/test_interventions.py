"""Interventions (issue 23, item 2): an event in a room perceived as the acoustic rules say, a memory
planted in one agent, refused when they break a rule; replays repeat them, forks copy those before
their tick, and the run's figures count them."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from memories.models import Memory
from tests.engine_helpers import new_run
from tests.oracle import assert_same_transcript
from voyage.engine.runner import advance, run_summary, transcript_sha256
from voyage.instruments.interventions import InterventionError, intervene
from voyage.instruments.models import Intervention
from voyage.models import Event, LLMCall, Run
from voyage.records.transcript import markdown
from voyage.runs.config import replay_run
from voyage.runs.fork import fork
from world.models import AgentState, Exit, Room

pytestmark = pytest.mark.django_db


def paused(run: Run) -> Run:
    Run.objects.filter(pk=run.pk).update(state=Run.PAUSED)
    run.refresh_from_db()
    return run


def played(ticks: int, stop_at: int, seed: int = 4) -> Run:
    return paused(advance(new_run(seed=seed, target_ticks=ticks), stop_at))


def event_lines(run: Run, *, upto_commit: int | None = None) -> list:
    """The event log as transcript_sha256 reads it (content only), optionally only what the first
    `upto_commit` ticks committed."""
    rows = Event.objects.filter(run=run).order_by("seq").values_list("tick", "kind", "actor__persona__key",
                                                                    "room__key", "text", "data")
    lines = [json.dumps(list(r), sort_keys=True) for r in rows]
    if upto_commit is None:
        return lines
    return [line for line, r in zip(lines, rows) if r[0] < upto_commit or (r[0] == upto_commit and r[1] in LATE)]


LATE = {"reflection", "wind_down", "nightfall", "bulletin"}


def vast_room_with_neighbours(run: Run):
    """A vast room, a quiet room next door, and a room two doors away (not next door)."""
    rooms = {r.id: r for r in Room.objects.filter(scenario=run.scenario)}
    doors: dict[int, set[int]] = {i: set() for i in rooms}
    for a, b in Exit.objects.filter(scenario=run.scenario).values_list("a_id", "b_id"):
        doors[a].add(b)
        doors[b].add(a)
    for room in rooms.values():
        quiet = [rooms[i] for i in doors[room.id] if rooms[i].ambient_noise == "low"]
        far = [rooms[j] for i in doors[room.id] for j in doors[i] if j != room.id and j not in doors[room.id]]
        if room.scale == "vast" and quiet and far:
            return room, quiet[0], far[0]
    pytest.fail("the scenario has no vast room with a quiet neighbour")


def place(run, room, *, asleep=False, skip=()) -> AgentState:
    agent = AgentState.objects.filter(run=run, alive=True).exclude(pk__in=[a.pk for a in skip]).order_by("id").first()
    AgentState.objects.filter(pk=agent.pk).update(location=room, asleep=asleep)
    agent.refresh_from_db()
    return agent


def rows_since(agent, first_id):
    return list(Memory.objects.filter(agent=agent, id__gt=first_id).values_list("kind", "text"))


@pytest.mark.parametrize("how", ["sound", "sight"])
def test_a_room_event_is_perceived_as_the_acoustic_rules_say_and_not_beyond(how):
    run = played(40, 10)
    vast, quiet, far = vast_room_with_neighbours(run)
    AgentState.objects.filter(run=run).update(location=far)  # everyone else two doors away
    awake = place(run, vast)
    sleeper = place(run, vast, asleep=True, skip=[awake])
    next_door = place(run, quiet, skip=[awake, sleeper])
    first = Memory.objects.order_by("-id").values_list("id", flat=True).first()
    intervene(run, "room_event", "The lights go out.", room=vast.key, how=how, made_by="tester")
    said = ("heard" if how == "sound" else "seen", f"In the {vast.name}: The lights go out.")
    assert rows_since(awake, first) == [said]
    if how == "sound":  # a loud sound: routed as a shout
        assert rows_since(sleeper, first) == [said]
        assert rows_since(next_door, first) == [("observed", f"Something loud happened nearby, in the {vast.name}.")]
    else:  # a visible change: only those awake in the room
        assert rows_since(sleeper, first) == [] and rows_since(next_door, first) == []
    others = Memory.objects.filter(id__gt=first).exclude(agent__in=[awake, sleeper, next_door])
    assert not others.exists()  # two doors away: nothing
    event = Event.objects.get(run=run, kind="intervention")
    assert event.tick == 10 and event.room_id == vast.id and event.data["by"] == "tester"
    assert event.data["delivered"][awake.persona.key] == ("HEARD" if how == "sound" else "SEEN")
    assert "✋ Intervention by tester (in the " + vast.name in markdown(run)


def test_a_planted_memory_reaches_only_its_agent_and_its_next_prompt():
    run = played(40, 20)
    agent = AgentState.objects.filter(run=run, alive=True, asleep=False).select_related("persona").first()
    words = "You remember a green door in the hold, and that it must stay shut."
    intervene(run, "memory", words, agent=agent.persona.key)
    assert list(Memory.objects.filter(text=words).values_list("agent_id", "kind", "tick")) == [(agent.id, "planted", 20)]
    Run.objects.filter(pk=run.pk).update(state=Run.RUNNING)
    advance(run, 24)
    prompts = {c.agent_id: c.prompt for c in LLMCall.objects.filter(run=run, tick=20, purpose="action")}
    assert words in json.dumps(prompts[agent.id], ensure_ascii=False)
    assert not any(words in json.dumps(p, ensure_ascii=False) for aid, p in prompts.items() if aid != agent.id)
    assert Memory.objects.filter(text__contains="green door").exclude(agent=agent).count() == 0


def test_a_fork_with_an_intervention_equals_its_source_before_and_differs_after():
    source = advance(new_run(seed=6, target_ticks=40), 40)
    child = fork(source, 20)
    intervene(child, "room_event", "A telegram is pinned to the notice board.", room=vast_room_with_neighbours(child)[0].key,
              how="sight", made_by="tester")
    Run.objects.filter(pk=child.pk).update(state=Run.RUNNING)
    advance(child, 40)
    assert event_lines(child, upto_commit=20) == event_lines(source, upto_commit=20)
    assert event_lines(child) != event_lines(source)
    assert transcript_sha256(child) != transcript_sha256(source)


def test_a_replay_repeats_the_interventions_and_a_fork_copies_those_before_its_tick():
    source = played(40, 10, seed=8)
    vast = vast_room_with_neighbours(source)[0]
    intervene(source, "room_event", "The lights go out.", room=vast.key, made_by="tester")
    agent = AgentState.objects.filter(run=source, alive=True).select_related("persona").first()
    intervene(source, "memory", "Someone has been in my cabin.", agent=agent.persona.key, tick=30, made_by="tester")
    assert Intervention.objects.filter(run=source, applied=False).count() == 1  # waits for tick 30
    Run.objects.filter(pk=source.pk).update(state=Run.RUNNING)
    advance(source, 40)
    assert Event.objects.filter(run=source, kind="intervention").values_list("tick", flat=True).count() == 2
    replay = replay_run(source)
    advance(replay, replay.target_ticks)
    assert_same_transcript(replay, source)
    assert run_summary(replay, 0)["interventions"] == run_summary(source, 0)["interventions"] == 2
    child = fork(source, 20)
    assert list(Event.objects.filter(run=child, kind="intervention").values_list("tick", "text")) == \
        [(10, "The lights go out.")]
    assert not Intervention.objects.filter(run=child, tick=30).exists()


def test_the_status_line_counts_interventions():
    run = played(40, 10)
    intervene(run, "memory", "A voice: look behind the clock.",
              agent=AgentState.objects.filter(run=run).first().persona.key)
    out = io.StringIO()
    call_command("voyage_status", "--json", "--run", str(run.pk), stdout=out)
    assert json.loads(out.getvalue())["interventions"] == 1


def test_bad_interventions_are_refused_by_name_and_nothing_is_written():
    run = played(40, 10)
    dead = AgentState.objects.filter(run=run).select_related("persona").last()
    AgentState.objects.filter(pk=dead.pk).update(alive=False)
    someone = AgentState.objects.filter(run=run, alive=True).select_related("persona").first()
    counts = (Event.objects.count(), Memory.objects.count(), Intervention.objects.count())
    for kwargs, says in [
        (dict(kind="room_event", text="Smoke!", room="the-moon"), "has no room 'the-moon'"),
        (dict(kind="memory", text="Hello.", agent=dead.persona.key), "is dead"),
        (dict(kind="memory", text="Hello.", agent="nobody"), "no agent 'nobody'"),
        (dict(kind="memory", text="  ", agent=someone.persona.key), "text: say what happens"),
        (dict(kind="memory", text="Hello.", agent=someone.persona.key, tick=5), "earlier: fork it"),
        (dict(kind="room_event", text="Smoke!", room=someone.location.key, how="smell"), "how:"),
        (dict(kind="weather", text="Fog."), "kind:"),
    ]:
        with pytest.raises(InterventionError, match=says):
            intervene(run, **kwargs)
    Run.objects.filter(pk=run.pk).update(state=Run.RUNNING)
    with pytest.raises(InterventionError, match="pause it first"):
        intervene(run, "memory", "Hello.", agent=someone.persona.key)
    assert (Event.objects.count(), Memory.objects.count(), Intervention.objects.count()) == counts


def test_an_object_placed_moved_and_taken_away_changes_only_this_runs_world():
    from voyage.engine.world import RunWorld
    from world.models import Prop

    run, other = played(40, 10), played(40, 10, seed=9)
    props = Prop.objects.count()
    agent = AgentState.objects.filter(run=run, alive=True).select_related("location").first()
    here, there = agent.location, Room.objects.filter(scenario=run.scenario).exclude(pk=agent.location_id).first()

    def things(world, room):
        return [p.name for p in world.props_by_room[room.id]]

    intervene(run, "object_place", "A brass telescope, still warm.", name="Brass Telescope", room=here.key)
    world = RunWorld(run)
    assert "Brass Telescope" in things(world, here)
    assert "Brass Telescope" in [t.name for t in [world.props[i] for i in
                                                  [tid for _, tid in world.situation(world.agents[agent.id]).things]]]
    assert "Brass Telescope" not in things(RunWorld(other), here) and Prop.objects.count() == props
    intervene(run, "object_move", name="brass telescope", room=there.key)
    world = RunWorld(run)
    assert "Brass Telescope" not in things(world, here) and "Brass Telescope" in things(world, there)
    scenery = Prop.objects.filter(scenario=run.scenario).first()
    intervene(run, "object_remove", name=scenery.name)
    intervene(run, "object_remove", name="Brass Telescope")
    world = RunWorld(run)
    assert scenery.id not in world.props and not any(p.name == "Brass Telescope" for p in world.props.values())
    assert Prop.objects.filter(pk=scenery.pk, room=scenery.room).exists()  # the scenario keeps it
    assert scenery.id in RunWorld(other).props
    assert f"(Brass Telescope placed in the {here.name}): A brass telescope" in markdown(run)
    assert "(Brass Telescope taken away): Brass Telescope is taken away." in markdown(run)
    kinds = list(Event.objects.filter(run=run, kind="intervention").values_list("data__what", flat=True))
    assert kinds == ["object_place", "object_move", "object_remove", "object_remove"]
    kept = Prop.objects.filter(scenario=run.scenario).exclude(pk=scenery.pk).first()
    with pytest.raises(InterventionError, match=f"already an object called '{kept.name.upper()}'"):
        intervene(run, "object_place", "Another one.", name=kept.name.upper(), room=here.key)
    with pytest.raises(InterventionError, match="no object called 'Brass Telescope'"):
        intervene(run, "object_move", name="Brass Telescope", room=here.key)


def test_a_persona_change_is_for_this_run_only_and_from_its_tick():
    from memories.identity import identity_text
    from voyage.engine.world import RunWorld
    from world.models import Persona

    run, other = played(40, 10), played(40, 10, seed=9)
    agent = AgentState.objects.filter(run=run).select_related("persona", "run__scenario").first()
    old = agent.persona.secret
    intervene(run, "persona", "I am the purser's son, travelling under a dead man's name.", agent=agent.persona.key,
              field="secret", made_by="tester")
    top = max(spec.level for spec in run.scenario.rung_specs())
    agent.rung = top  # a rung that knows its secret (never saved)
    assert "the purser's son" in identity_text(agent)  # a memory job's view
    assert old in identity_text(agent, upto_tick=9)  # an interview before the change
    world = RunWorld(run)
    world.agents[agent.id].rung = top
    assert "the purser's son" in identity_text(world.agents[agent.id], world)  # the tick's view
    mate = AgentState.objects.select_related("persona", "run__scenario").get(run=other, persona=agent.persona)
    mate.rung = top
    assert old in identity_text(mate) and Persona.objects.get(pk=agent.persona_id).secret == old
    with pytest.raises(InterventionError, match="field: one of history, fear, secret"):
        intervene(run, "persona", "x", agent=agent.persona.key, field="name")


def test_a_runs_fixture_carries_its_interventions_by_natural_keys():
    from voyage.export.fixture import write_fixture

    run = played(40, 10)
    room = vast_room_with_neighbours(run)[0]
    intervene(run, "room_event", "The lights go out.", room=room.key, made_by="tester")
    out = io.StringIO()
    write_fixture(run, out)
    [row] = [json.loads(line) for line in out.getvalue().splitlines() if '"instruments.intervention"' in line]
    assert "pk" not in row and row["fields"]["run"] == [str(run.uuid)]
    assert row["fields"]["room"] == list(room.natural_key()) and row["fields"]["applied"] is True


def test_an_object_placed_in_a_fork_changes_what_follows():
    source = advance(new_run(seed=6, target_ticks=60), 60)
    child = fork(source, 20)
    rooms = set(AgentState.objects.filter(run=child, alive=True, asleep=False).values_list("location__key", flat=True))
    for n, room in enumerate(sorted(rooms)):
        intervene(child, "object_place", "A brass telescope, still warm.", name=f"Brass Telescope {n}", room=room)
    Run.objects.filter(pk=child.pk).update(state=Run.RUNNING)
    advance(child, 60)
    after = [line for line in event_lines(child)[len(event_lines(child, upto_commit=20)):] if '"intervention"' not in line]
    assert after != event_lines(source)[len(event_lines(source, upto_commit=20)):]
    assert Event.objects.filter(run=child, kind="interact", text__contains="Brass Telescope").exists()
