"""Scene packets: a room over a window of ticks, built from the event log alone — the same every
time, bounded with the cut stated, holding nothing that happened elsewhere — judged on the rubric's
dimensions that read `scene`, by the scripted judge and by a judge on a local server that knows its
job; a citation of an id the scene does not hold is missing, with its reason."""
from __future__ import annotations

import io
import json
import random

import pytest
from django.core.management import CommandError, call_command

from memories.as_of import state_at
from tests.judge_servers import KnowingJudge, read_prompt
from voyage.gateway.offline_judge import said
from voyage.judging import defects
from voyage.judging.job import judge_run, save
from voyage.judging.packets import PacketError, busiest_scenes, scene, tokens_of
from voyage.judging.prompt import read_scores
from voyage.judging.rubric import load_rubric
from voyage.models import Event, ModelProfile
from world.models import AgentState, Room

pytestmark = pytest.mark.django_db
AGENTS = ["bridget_keane", "harold_ashcombe", "leah_rosen"]
SCENE_DIMS = {"social_plausibility", "world_voice", "non_repetition"}


@pytest.fixture
def busiest(judged_run):
    return busiest_scenes(judged_run, 1, 3)


def test_a_scene_is_deterministic_bounded_and_holds_only_its_room(judged_run, busiest):
    room, first, last = busiest[0]
    one, two = scene(judged_run, room, first, last), scene(judged_run, room, first, last)
    assert one == two and one["id"] == f"r{judged_run.pk}.scene.{room}.{first}-{last}"
    assert tokens_of(one) <= 4500 and one["items"]
    small = scene(judged_run, room, first, last, budget=1200)
    assert tokens_of(small) <= 1200 and len(small["items"]) < len(one["items"])
    assert small["cut"].startswith("cut to 1200 tokens") and "thinned evenly over the window" in small["cut"]
    events = {f"e{e.pk}": e for e in Event.objects.filter(run=judged_run).select_related("room", "actor__persona")}
    for item in one["items"]:
        e = events[item["id"]]
        assert first <= e.tick <= last and item["tick"] == e.tick
        assert e.room.key == room or (e.kind == "move" and e.data["from"] == room)  # nothing from elsewhere
        assert e.kind not in ("reflection", "rung", "action_fail")  # no unspoken thought, no rung
        if e.actor_id and e.room.key == room:
            assert e.actor.persona.display_name in one["scene"]["present"]
    # Everything said or done in the room in the window is there when the budget holds it all.
    whole = scene(judged_run, room, first, last, budget=100_000)
    deeds = Event.objects.filter(run=judged_run, room__key=room, tick__gte=first, tick__lte=last,
                                 kind__in=("communicate", "interact", "attack", "death"))
    assert {f"e{pk}" for pk in deeds.values_list("pk", flat=True)} <= {i["id"] for i in whole["items"]}
    assert whole["cut"].startswith("nothing cut")


def test_a_shout_heard_from_the_next_room_is_not_in_that_rooms_scene(judged_run):
    shout = next(e for e in Event.objects.filter(run=judged_run, kind="communicate").order_by("seq")
                 if "SHOUT_NEARBY" in e.data.get("delivered", {}).values())
    listener = next(k for k, v in shout.data["delivered"].items() if v == "SHOUT_NEARBY")
    where = state_at(AgentState.objects.get(run=judged_run, persona__key=listener), shout.tick)[3]
    assert where != shout.room_id  # heard through the wall
    near = Room.objects.get(pk=where)
    packet = scene(judged_run, near.key, max(0, shout.tick - 5), min(shout.tick + 5, judged_run.tick - 1),
                   budget=100_000)
    assert f"e{shout.pk}" not in {i["id"] for i in packet["items"]}
    assert all(shout.text not in i["text"] for i in packet["items"])


def test_a_bad_scene_is_refused(judged_run):
    with pytest.raises(PacketError, match="has no room 'nowhere'"):
        scene(judged_run, "nowhere", 0, 10)
    with pytest.raises(PacketError, match="has committed 120 ticks"):
        scene(judged_run, "f_deck_passage", 100, 200)
    with pytest.raises(CommandError, match="give ROOM@A-B"):
        call_command("judge", str(judged_run.pk), "--scene", "f_deck_passage@ten", stdout=io.StringIO())
    no_scene = load_rubric().only(["persona_adherence"])
    with pytest.raises(ValueError, match="no dimension that reads scene"):
        judge_run(judged_run, no_scene, 1, agents=AGENTS, scenes=1)


def test_a_citation_not_in_the_scene_is_missing_with_its_reason(judged_run, busiest):
    packet = scene(judged_run, *busiest[0])
    rubric = load_rubric().for_packet(packet)
    assert {d.id for d in rubric.dimensions} == SCENE_DIMS
    inside, outside = packet["items"][0]["id"], "e999999999"
    text = json.dumps({"scores": {
        "social_plausibility": {"score": 4, "reason": "ok", "cites": [inside]},
        "world_voice": {"score": 5, "reason": "ok", "cites": [inside, outside]},
        "non_repetition": {"score": 5, "reason": "ok", "cites": ["m1"]}}})
    plausible, voice, repetition = read_scores(text, rubric, packet)
    assert plausible.score == 4 and not plausible.missing
    assert voice.score is None and voice.missing == f"cites {outside}, not in its packet"
    assert repetition.score is None and repetition.missing == "cites m1, not in its packet"  # an agent's row


def test_each_scene_defect_is_in_the_copy_and_not_in_the_original(judged_run, busiest):
    for room, first, last in busiest:
        packet = scene(judged_run, room, first, last)
        foreign = packet["world"]["foreign_words"]
        for kind in defects.SCENE_KINDS:
            altered = defects.plant(kind, packet, random.Random(kind), {})
            assert not defects.present(kind, packet) and defects.present(kind, altered), (room, kind)
            assert len(altered["items"]) == len(packet["items"]) and altered["scene"] == packet["scene"]
            changed = [(a, b) for a, b in zip(packet["items"], altered["items"]) if a != b]
            if kind == "anachronism":  # one line: the same speaker, to the same person, with a foreign word
                (before, after), = changed
                assert after["text"].split('"')[0] == before["text"].split('"')[0]
                assert any(w in said(after) for w in foreign) and not any(w in said(before) for w in foreign)
            else:  # one of its lines, by its speaker, said five times
                lines = [i["text"] for i in altered["items"] if i["kind"] == "communicate"]
                assert max(lines.count(t) for t in lines) >= defects.REPEATS
    assert defects.plant("persona_swap", packet, random.Random(1), {}) is None  # not a room's defect
    assert not defects.present("persona_swap", packet)


def test_the_command_judges_scenes_and_states_them(judged_run):
    out = io.StringIO()
    call_command("judge", str(judged_run.pk), "--agents", ",".join(AGENTS), "--scenes", "2",
                 "--scene", "f_deck_passage@0-30", stdout=out, stderr=io.StringIO())
    line = json.loads(out.getvalue())
    scenes = line["options"]["scenes"]
    assert scenes[0] == "scene:f_deck_passage@0-30" and len(scenes) == 3
    assert set(line["options"]["scene_dimensions"]) == SCENE_DIMS
    assert line["judged"] == 3 * 8 + 3 * 3 and line["verdict"] == "reliable"


def test_a_judge_that_knows_its_job_scores_scenes_and_finds_their_defects(judged_run):
    with KnowingJudge() as server:
        ModelProfile.objects.create(name="knowing-scenes", kind=ModelProfile.OPENAI, base_url=server.base_url,
                                    model="judge", structured_output="json_object_schema")
        result = judge_run(judged_run, load_rubric(), 1, agents=AGENTS, judges=["knowing-scenes"], scenes=3,
                           planted_share=1.0)
        assert len(server.records) == result.calls
        asked = [r["body"] for r in server.records
                 if read_prompt(r["body"]).mode == "score" and "scene" in read_prompt(r["body"]).packets[0]]
        # A scene is asked its own dimensions only, and the schema (the profile's dialect) holds it to them.
        assert asked and all(set(b["response_format"]["schema"]["properties"]["scores"]["required"]) == SCENE_DIMS
                             for b in asked)
    rows = [r for r in result.rows if r.agent.startswith("scene:")]
    originals = {(r.agent, r.judgement.dimension): r.judgement.score for r in rows if r.copy == "original"
                 and r.repeat == 0}
    assert len(originals) == 3 * 3 and all(s is not None for s in originals.values())
    found = {kind: [r.judgement.score < originals[(r.agent, r.judgement.dimension)] for r in rows
                    if r.copy == kind and r.judgement.dimension == defects.TARGET[kind]] for kind in defects.SCENE_KINDS}
    assert all(len(v) == 3 and all(v) for v in found.values()), found
    assert result.verdict == "reliable"


def test_the_overview_shows_scenes_after_the_agents_with_the_verdict(staff, judged_run):
    save(judge_run(judged_run, load_rubric(), 1, agents=AGENTS, scenes=1), 0.0)
    page = staff.get(f"/runs/{judged_run.pk}/").content.decode()
    key = busiest_scenes(judged_run, 1, 1)[0]
    label = f"scene:{key[0]}@{key[1]}-{key[2]}"
    assert page.index('data-agent="leah_rosen"') < page.index(f'data-agent="{label}"')
    row = page.split(f'data-agent="{label}"', 1)[1].split("</tr>", 1)[0]
    assert row.count("<td>—</td>") == 8 - 3 and "missing" not in row  # not asked of a scene, not missing
    assert row.rstrip().endswith("<td>reliable</td>")
