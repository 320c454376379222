"""Scenario files: every error names its key path, line and rule, and leaves the database as it was;
the 1912 scenario survives a round trip through a file with the same transcript."""
import re

import pytest
from django.core.management import CommandError, call_command

from world.models import Exit, Persona, Prop, Room, Rung, Scenario, SoulEntry
from world.scenarios.file_format import ScenarioFileError, read_scenario
from world.scenarios.files import export_yaml, import_yaml, scenario_data, shipped_file

pytestmark = pytest.mark.django_db
EDELWEISS = shipped_file("edelweiss").read_text(encoding="utf-8")


def world_rows():
    return [m.objects.count() for m in (Scenario, Room, Exit, Persona, SoulEntry, Prop, Rung)]


def as_copy(text: str, slug: str = "copy") -> str:
    return text.replace("slug: edelweiss", f"slug: {slug}", 1)


def line_of(text: str, fragment: str) -> int:
    return text[:text.index(fragment)].count("\n") + 1


def refused(text: str) -> str:
    """The import's message, having checked that nothing was written."""
    before = world_rows()
    with pytest.raises(ScenarioFileError) as caught:
        import_yaml(text)
    assert world_rows() == before
    return str(caught.value)


def test_the_shipped_file_is_sound_and_installed():
    data, problems = read_scenario(EDELWEISS)
    assert problems == []
    scenario = Scenario.objects.get(slug="edelweiss")
    assert 6 <= scenario.personas.count() <= 10 and 8 <= scenario.rooms.count() <= 12
    for prop in data["props"]:
        prop.setdefault("owner", None)  # optional in the file; an export writes it always
    assert scenario_data(scenario) == data


def test_missing_key():
    text = as_copy(EDELWEISS).replace("  fear: You fear the Italian consulate", "  fears: You fear the Italian consulate")
    message = refused(text)
    n = line_of(text, "- key: paolo_benedetti")
    assert f"line {n}: personas[2].fear: missing (rule: required key)" in message
    assert "personas[2].fears: unknown key" in message


def test_wrong_type():
    text = as_copy(EDELWEISS).replace("  private: true\n  description: The medical", "  private: yes please\n"
                                      "  description: The medical")
    message = refused(text)
    assert f"line {line_of(text, 'private: yes please')}: rooms[8].private: expected true or false, got text " \
           f"(rule: type)" in message


def test_unknown_room_in_an_exit():
    text = as_copy(EDELWEISS).replace("- [salon, sun_terrace]", "- [salon, ballroom]")
    message = refused(text)
    assert f"line {line_of(text, '- [salon, ballroom]')}: exits[3][1]: the exit names an unknown room 'ballroom' " \
           f"(rule: exits, homes and props name rooms of the scenario)" in message


def test_a_name_a_model_cannot_write_in_a_grammar():
    text = as_copy(EDELWEISS).replace("display_name: Paolo Benedetti", 'display_name: Paolo "Il Conte" Benedetti')
    message = refused(text)
    assert "personas[2].display_name: the person name 'Paolo \"Il Conte\" Benedetti' holds a double quote" in message
    assert "(rule: names hold no double quote, backslash or control character" in message


def test_disconnected_graph():
    text = as_copy(EDELWEISS).replace("- [east_corridor, room_9]\n", "")
    message = refused(text)
    assert "rooms[11]: no way leads from 'entrance_hall' to 'room_9'" in message
    assert "(rule: the room graph is connected)" in message
    assert f"line {line_of(text, '- key: room_9')}:" in message


def test_persona_without_a_name_prop():
    text = as_copy(EDELWEISS).replace("  kind: name\n  room: room_9\n  owner: jonas_weber",
                                      "  kind: scenery\n  room: room_9\n  owner: jonas_weber")
    message = refused(text)
    assert f"line {line_of(text, '- key: jonas_weber')}: personas[7]: persona 'jonas_weber' has 0 name props; " \
           f"it needs exactly one (rule: every persona has one name prop of its own)" in message


def test_spouse_who_is_not_mutual():
    text = as_copy(EDELWEISS).replace("  spouse: edmund_hale", "  spouse: null")
    message = refused(text)
    assert f"line {line_of(text, '  spouse: vivian_hale')}: personas[3].spouse: 'edmund_hale' names 'vivian_hale' " \
           f"as spouse, but 'vivian_hale' names None (rule: spouses are mutual and share a home)" in message


def test_spouses_who_live_apart():
    text = as_copy(EDELWEISS).replace("  home: room_4\n  spouse: edmund_hale", "  home: room_9\n  spouse: edmund_hale")
    assert "live apart ('room_4', 'room_9'): they share a home (rule: spouses are mutual" in refused(text)


def test_gap_in_the_rungs():
    text = as_copy(EDELWEISS).replace("- level: 2\n", "- level: 3\n")
    message = refused(text)
    assert f"line {line_of(text, '- level: 3')}: rungs[2].level: the levels are [0, 1, 3]: level 2 is missing " \
           f"(rule: rung levels run 0, 1, 2… without gaps)" in message


def test_yaml_syntax_and_every_problem_at_once():
    assert re.search(r"line \d+: .* \(rule: YAML syntax\)", refused(as_copy(EDELWEISS) + "\n  - [unclosed\n"))
    text = as_copy(EDELWEISS).replace("- [salon, sun_terrace]", "- [salon, ballroom]").replace("- level: 2\n",
                                                                                             "- level: 5\n")
    message = refused(text)
    assert "ballroom" in message and "level 2, 3, 4 is missing" in message


def test_an_installed_slug_needs_replace_and_a_used_one_is_never_replaced(tmp_path):
    assert "line 9: slug: scenario 'edelweiss' is already installed; import with --replace" in refused(EDELWEISS)
    from voyage.runs.config import configure_run

    path = tmp_path / "e.yaml"
    path.write_text(EDELWEISS.replace("name: Sanatorium Edelweiss, January 1929", "name: Edelweiss, revised"))
    call_command("scenario", "import", str(path), "--replace")
    assert Scenario.objects.get(slug="edelweiss").name == "Edelweiss, revised"
    configure_run("edelweiss", ticks=5)
    before = world_rows()
    with pytest.raises(CommandError, match=r"used by 1 run\(s\); import this file under another slug"):
        call_command("scenario", "import", str(path), "--replace")
    assert world_rows() == before


def test_1912_round_trip_gives_the_same_scenario_and_transcript(tmp_path):
    from tests.oracle import assert_same_transcript
    from voyage.engine.runner import advance, create_run

    out = tmp_path / "1912.yaml"
    call_command("scenario", "export", "1912", "-o", str(out))
    text = out.read_text(encoding="utf-8")
    copy = import_yaml(text.replace("slug: '1912'", "slug: copy-1912", 1))
    original = Scenario.objects.get(slug="1912")
    assert export_yaml(copy) == export_yaml(original).replace("slug: '1912'", "slug: copy-1912", 1)
    runs = []
    for scenario in (original, copy):
        runs.append(create_run(scenario, seed=7, target_ticks=40))
        advance(runs[-1], 40)
    assert_same_transcript(*runs)


@pytest.mark.parametrize("slug, ticks, persons", [
    ("1912", 40, 33),
    ("edelweiss", 330, 8),  # through the wind-down (tick 309) and nightfall (319): the voice speaks
])
def test_a_shipped_scenario_exported_and_imported_into_an_emptied_database_runs_the_same(tmp_path, slug, ticks,
                                                                                           persons):
    """The whole round trip by command, in a scratch database of its own: export a shipped scenario
    (every text of its voice and phrasebook with it), run it; take the built-in away and import the
    file in its place (--replace); the same run tells the same story."""
    from voyage.bench.fleet import ScratchDB, manage, manage_json
    from tests.oracle import assert_same, transcript_through
    from world.scenarios.voice import PHRASES, TEXTS

    with ScratchDB("sqlite") as db:
        env = db.env()
        out = tmp_path / f"{slug}.yaml"
        manage(env, "scenario", "export", slug, "-o", str(out))
        exported, problems = read_scenario(out.read_text(encoding="utf-8"))
        assert problems == []
        assert list(exported["voice"]) == [t.key for t in TEXTS]
        assert list(exported["phrasebook"]) == [t.key for t in PHRASES]
        shipped = read_scenario(shipped_file(slug).read_text(encoding="utf-8"))[0]
        assert exported["voice"] == shipped["voice"] and exported["phrasebook"].items() >= shipped["phrasebook"].items()
        before = manage_json(env, "run_voyage", "--scenario", slug, "--ticks", str(ticks), "--seed", "7")[-1]
        events = transcript_through(db.query, before["run_id"])  # read now: the run is deleted below
        # The run goes (with its agents, memory, events and calls), so that nothing uses the built-in scenario.
        manage(env, "shell", "-c", "from voyage.models import Run; Run.objects.all().delete()")
        [(built_in,)] = db.query(f"SELECT id FROM world_scenario WHERE slug = '{slug}'")
        manage(env, "scenario", "import", str(out), "--replace")
        assert db.query(f"SELECT id FROM world_scenario WHERE slug = '{slug}'") != [(built_in,)]  # rows made anew
        assert db.query("SELECT COUNT(*) FROM world_persona p JOIN world_scenario s ON s.id = p.scenario_id "
                        f"WHERE s.slug = '{slug}'") == [(persons,)]
        after = manage_json(env, "run_voyage", "--scenario", slug, "--ticks", str(ticks), "--seed", "7")[-1]
        assert_same(transcript_through(db.query, after["run_id"]), events)
        assert manage(env, "scenario", "export", slug) == out.read_text(encoding="utf-8")


def test_a_voice_text_with_an_unknown_placeholder_is_refused_with_its_key_path_and_line():
    text = as_copy(EDELWEISS).replace("  nightfall_event: the whole house sleeps until {time}",
                                      "  nightfall_event: the whole house sleeps until {dawn} in {room}")
    message = refused(text)
    n = line_of(text, "  nightfall_event:")
    assert f"line {n}: voice.nightfall_event: unknown placeholder {{dawn}} (this text may use: {{time}}) " \
           f"(rule: placeholders)" in message
    assert f"line {n}: voice.nightfall_event: unknown placeholder {{room}}" in message


def test_a_malformed_empty_or_unknown_voice_text_is_refused_and_nothing_is_written():
    text = as_copy(EDELWEISS).replace("  shared_bond: you share this room", "  shared_bond: you share {this room")
    text = text.replace("  room_kind: a room of the house", "  room_kind: ''\n  ship_word: liner")
    message = refused(text)
    assert f"line {line_of(text, '  shared_bond:')}: voice.shared_bond: malformed placeholder" in message
    assert f"line {line_of(text, '  room_kind:')}: voice.room_kind: expected a text that is not empty" in message
    assert f"line {line_of(text, '  ship_word:')}: voice.ship_word: unknown key (known here: wind_down_cue," in message
    message = refused(as_copy(EDELWEISS).replace("voice:\n", "voice: [a, b]\nold_voice:\n", 1))
    assert "voice: expected a mapping" in message


def test_a_file_without_a_voice_speaks_the_neutral_defaults():
    from world.scenarios.voice import TEXTS

    body = EDELWEISS[EDELWEISS.index("voice:\n"):EDELWEISS.index("\nrooms:\n") + 1]
    scenario = import_yaml(as_copy(EDELWEISS).replace(body, ""))
    assert scenario.voice == {}
    assert scenario_data(scenario)["voice"] == {t.key: t.default for t in TEXTS}
    assert "{minutes}" in scenario_data(scenario)["voice"]["wind_down_cue"]


def test_a_phrasebook_line_is_checked_at_its_own_index():
    text = as_copy(EDELWEISS).replace("  - Nurse! Is anybody there?", "  - Nurse {nurse}! Is anybody there?")
    text = text.replace("  bulletin_title: The House Letter", "  bulletin_title: []")
    message = refused(text)
    assert f"line {line_of(text, '  - Nurse {nurse}')}: phrasebook.shouts[0]: unknown placeholder {{nurse}} " \
           f"(this text may use: none) (rule: placeholders)" in message
    assert f"line {line_of(text, '  bulletin_title:')}: phrasebook.bulletin_title: expected a text" in message
    text = as_copy(EDELWEISS).replace("  - Good day. {me}, at your service.", "  - Good day. {me} and {you}.")
    assert "phrasebook.openers_named[0]: unknown placeholder {you} (this text may use: {me})" in refused(text)
