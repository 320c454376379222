"""The admin as a staff user drives it: a model profile, a run of five on the Edelweiss scenario started
on a real worker, seen advancing, paused, resumed and cloned; a bad value refused at its field; a
broken scenario file refused with its key path; a model profile's endpoint tested form by form. Checked
against the database each time."""
import json
import time

from playwright.sync_api import expect

from voyage.bench.fake_openai_server import FakeOpenAI
from voyage.bench.fleet import manage
from world.scenarios.files import shipped_file

CAST = ["Anton Kessler", "Ilse Marr", "Edmund Hale", "Vivian Hale", "Jonas Weber"]


def count(site, table: str) -> int:
    return site.query(f"SELECT COUNT(*) FROM {table}")[0][0]


def run_action(page, run_id: int, label: str, **fields) -> None:
    page.goto("/admin/voyage/run/")
    page.check(f"input[name=_selected_action][value='{run_id}']")
    page.select_option("select[name=action]", label=label)
    for name, value in fields.items():
        page.fill(f".actions input[name={name}]", value)
    page.click(".actions button[name=index]")


def shown_tick(page, run_id: int) -> int:
    page.goto(f"/admin/voyage/run/{run_id}/change/")
    return int(page.locator(".field-tick .readonly").inner_text())


def wait_until(what: str, check, timeout: float = 90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def fill_run_form(page, soft_chars: str = "160000") -> None:
    page.goto("/admin/voyage/run/add/")
    page.fill("#id_name", "five snowed in")
    page.select_option("#id_scenario", label="Sanatorium Edelweiss, January 1929")
    page.select_option("#id_cast", label=[f"edelweiss: {name}" for name in CAST])
    page.select_option("#id_profile", label="offline for the browser")
    page.select_option("#id_schedule", "sequential")
    page.fill("#id_seed", "5")
    page.fill("#id_length", "20")
    page.select_option("#id_length_unit", "days")
    page.fill("#id_compaction_soft_chars", soft_chars)


def test_staff_configure_start_watch_pause_resume_and_clone_a_run(staff_page, site, worker):
    page = staff_page
    page.goto("/admin/voyage/modelprofile/add/")
    page.fill("#id_name", "offline for the browser")
    page.select_option("#id_kind", "offline")
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    [(profile_id,)] = site.query("SELECT id FROM voyage_modelprofile WHERE name = %s", ("offline for the browser",))

    fill_run_form(page)
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("ready to start: 5 agents")
    [(run_id, target, profile)] = site.query("SELECT id, target_ticks, profile_id FROM voyage_run WHERE name = %s",
                                             ("five snowed in",))
    assert (target, profile) == (9600, profile_id)
    cast = sorted(r[0] for r in site.query("SELECT p.display_name FROM agent_state a JOIN world_persona p "
                                           "ON p.id = a.persona_id WHERE a.run_id = %s", (run_id,)))
    assert cast == sorted(CAST)

    try:
        run_action(page, run_id, "Start selected runs on the worker")
        expect(page.locator(".messagelist")).to_contain_text(f"Started: run {run_id}.")
        first = wait_until("the worker to advance the run", lambda: shown_tick(page, run_id))
        wait_until("the page to show it advancing", lambda: shown_tick(page, run_id) > first)
        expect(page.locator(f".field-dashboard a[href='/runs/{run_id}/']")).to_be_visible()

        run_action(page, run_id, "Pause selected runs")
        expect(page.locator(".messagelist")).to_contain_text(f"Paused: run {run_id}.")
        run_action(page, run_id, "Pause selected runs")
        expect(page.locator(".messagelist")).to_contain_text("Pause refused")
        wait_until("the worker to let the paused run go",
                   lambda: site.query("SELECT claimed_by FROM voyage_run WHERE id = %s", (run_id,))[0][0] == "")
        paused_at = shown_tick(page, run_id)
        time.sleep(2)
        assert shown_tick(page, run_id) == paused_at and site.db.run_row(run_id)[1] == "paused"

        run_action(page, run_id, "Resume selected runs (after a pause or a fixed failure)")
        expect(page.locator(".messagelist")).to_contain_text(f"Resumed: run {run_id}.")
        wait_until("the resumed run to advance", lambda: shown_tick(page, run_id) > paused_at)

        run_action(page, run_id, "Clone selected runs (same configuration; a new seed if given)", seed="99")
        expect(page.locator(".messagelist")).to_contain_text(f"Clone of run {run_id}")
        expect(page.locator(".messagelist")).to_contain_text("seed 99, 5 agents")
        [(clone_id, seed, clone_target, clone_tick)] = site.query(
            "SELECT id, seed, target_ticks, tick FROM voyage_run WHERE name = %s", (f"clone of run {run_id}, seed 99",))
        assert (seed, clone_target, clone_tick) == (99, 9600, 0)
        assert count_agents(site, clone_id) == 5
    finally:
        manage(site.env, "voyage_control", "stop", str(run_id))


def count_agents(site, run_id: int) -> int:
    return site.query("SELECT COUNT(*) FROM agent_state WHERE run_id = %s", (run_id,))[0][0]


def test_soft_chars_above_hard_are_refused_at_the_field_and_nothing_is_made(staff_page, site):
    page = staff_page
    if not site.query("SELECT 1 FROM voyage_modelprofile WHERE name = %s", ("offline for the browser",)):
        manage(site.env, "shell", "-c", "from voyage.models import ModelProfile; "
                                        "ModelProfile.objects.create(name='offline for the browser')")
    runs, agents = count(site, "voyage_run"), count(site, "agent_state")
    fill_run_form(page, soft_chars="900000")
    page.click("input[name=_save]")
    expect(page.locator(".field-compaction_soft_chars .errorlist")).to_contain_text(
        "must be below the hard limit (800,000)")
    expect(page.locator("#id_compaction_soft_chars")).to_have_value("900000")  # the input is kept
    assert (count(site, "voyage_run"), count(site, "agent_state")) == (runs, agents)


def test_a_broken_scenario_file_shows_its_key_path_and_loads_nothing(staff_page, site, tmp_path):
    page = staff_page
    broken = shipped_file("edelweiss").read_text(encoding="utf-8").replace("slug: edelweiss", "slug: broken-snow")
    broken = broken.replace("- [salon, sun_terrace]", "- [salon, ballroom]")
    path = tmp_path / "broken.yaml"
    path.write_text(broken, encoding="utf-8")
    scenarios, rooms = count(site, "world_scenario"), count(site, "world_room")
    page.goto("/admin/world/scenario/")
    page.click("text=Upload a scenario file")
    page.set_input_files("#id_file", str(path))
    page.click("input[value='Check and load']")
    problems = page.locator("#scenario-file-problems")
    expect(problems).to_contain_text("nothing was written")
    expect(problems).to_contain_text("exits[3][1]: the exit names an unknown room 'ballroom'")
    expect(problems).to_contain_text("(rule: exits, homes and props name rooms of the scenario)")
    assert (count(site, "world_scenario"), count(site, "world_room")) == (scenarios, rooms)


def test_staff_tests_an_endpoint_from_its_profile_page(staff_page, site):
    """The "test this endpoint" button on a saved profile: one small request in each form to a real
    server on 127.0.0.1 that refuses json_schema as llama-cpp-python's does, and a message per form."""
    with FakeOpenAI(refuse_forms=("json_schema",)) as server:
        page = staff_page
        page.goto("/admin/voyage/modelprofile/add/")
        page.fill("#id_name", "smol on llama-cpp-python")
        page.select_option("#id_kind", "openai")
        page.fill("#id_base_url", server.base_url)
        page.fill("#id_model", "SmolLM2-135M-Instruct")
        page.select_option("#id_structured_output", "json_schema")
        page.click("input[name=_continue]")
        expect(page.locator(".messagelist")).to_contain_text("was added successfully")
        assert server.records == []  # saving sends nothing
        page.click("button[name=_test_endpoint]")
        messages = page.locator(".messagelist")
        expect(messages).to_contain_text("Endpoint of smol on llama-cpp-python: json_schema: refuses it "
                                         "(response_format type 'json_schema'; HTTP 500")
        for form in ("none", "json_object", "json_object_schema"):
            expect(messages).to_contain_text(f"Endpoint of smol on llama-cpp-python: {form}: takes it")
        expect(page.locator(".messagelist .warning")).to_have_count(1)
        expect(page.locator("button[name=_test_endpoint]")).to_be_visible()  # back on the profile's page
        sent = [r["body"].get("response_format", {}).get("type") for r in server.records]
        assert sent == [None, "json_object", "json_schema", "json_object"]
    [(form,)] = site.query("SELECT structured_output FROM voyage_modelprofile WHERE name = %s",
                           ("smol on llama-cpp-python",))
    assert form == "json_schema"  # the test changes nothing on the profile


def test_staff_picks_a_provider_and_the_profile_speaks_its_dialect(staff_page, site):
    """Choosing LM Studio on a new profile fills in its form (json_schema, not the json_object it
    refuses) when saved; the endpoint test, against a server applying LM Studio's rules, shows
    json_object refused in its words and json_schema taken and enforced."""
    from tests.provider_servers import ProviderServer

    with ProviderServer("lm-studio") as server:
        page = staff_page
        page.goto("/admin/voyage/modelprofile/add/")
        page.fill("#id_name", "qwen on lm studio")
        page.select_option("#id_kind", "openai")
        page.select_option("#id_provider", "lm-studio")
        page.fill("#id_base_url", server.base_url)
        page.fill("#id_model", "qwen3-4b")
        page.click("input[name=_continue]")
        expect(page.locator(".messagelist")).to_contain_text("was added successfully")
        expect(page.locator("#id_structured_output")).to_have_value("json_schema")  # filled in by the provider
        page.click("button[name=_test_endpoint]")
        messages = page.locator(".messagelist")
        expect(messages).to_contain_text("Endpoint of qwen on lm studio: json_object: refuses it (response_format "
                                         "type 'json_object'; HTTP 400")
        expect(messages).to_contain_text("'response_format.type' must be 'json_schema' or 'text'")
        expect(messages).to_contain_text("Endpoint of qwen on lm studio: json_schema: takes it and enforces it")
        assert [r["enforced"] for r in server.records if r["body"].get("response_format", {}).get("type")
                == "json_schema"] == [True]
    [(provider, form, cached)] = site.query("SELECT provider, structured_output, cached_tokens_at FROM "
                                            "voyage_modelprofile WHERE name = %s", ("qwen on lm studio",))
    assert (provider, form, cached) == ("lm-studio", "json_schema", "")


def test_staff_reads_edits_and_is_refused_a_bad_voice_text_and_a_used_scenario_stays_read_only(staff_page, site,
                                                                                                tmp_path):
    """A scenario's voice and phrasebook in the admin: each text with its help, edited and saved; an
    unknown placeholder refused at its field with nothing saved; once a run has used the scenario,
    its texts are shown and no longer editable."""
    from tests.browser.conftest import run_voyage

    page = staff_page
    path = tmp_path / "voiced.yaml"
    path.write_text(shipped_file("edelweiss").read_text(encoding="utf-8").replace("slug: edelweiss", "slug: voiced")
                    .replace("name: Sanatorium Edelweiss, January 1929", "name: Voiced House"), encoding="utf-8")
    page.goto("/admin/world/scenario/")
    page.click("text=Upload a scenario file")
    page.set_input_files("#id_file", str(path))
    page.click("input[value='Check and load']")
    expect(page.locator("#id_voice__nightfall_event")).to_have_value("the whole house sleeps until {time}")
    expect(page.locator(".field-voice__nightfall_event")).to_contain_text(
        "the public event of nightfall; {time}: the clock time of the next dawn")
    expect(page.locator("#id_phrasebook__shouts")).to_have_value(
        "Nurse! Is anybody there?\nWho has been in my room?\nSomebody here is not who they claim to be!\nHelp! Over here!")

    def voice(slug):
        import json
        return json.loads(site.query("SELECT voice FROM world_scenario WHERE slug = ?", (slug,))[0][0])

    page.fill("#id_voice__nightfall_event", "the house sleeps until {dawn}")
    page.click("input[name=_continue]")
    expect(page.locator(".field-voice__nightfall_event .errorlist")).to_contain_text(
        "voice.nightfall_event: unknown placeholder {dawn} (this text may use: {time})")
    assert voice("voiced")["nightfall_event"] == "the whole house sleeps until {time}"  # nothing saved
    page.fill("#id_voice__nightfall_event", "the house sleeps under the snow until {time}")
    page.fill("#id_phrasebook__shouts", "Sister!\nWho took my blanket?")
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    assert voice("voiced")["nightfall_event"] == "the house sleeps under the snow until {time}"
    import json
    phrasebook = json.loads(site.query("SELECT phrasebook FROM world_scenario WHERE slug = 'voiced'")[0][0])
    assert phrasebook["shouts"] == ["Sister!", "Who took my blanket?"]

    run_voyage(site, "--scenario", "voiced", "--ticks", "2")
    page.reload()
    expect(page.locator("#id_voice__nightfall_event")).to_have_count(0)
    expect(page.locator(".field-voice__nightfall_event")).to_contain_text("the house sleeps under the snow until {time}")
    expect(page.locator(".field-voice__nightfall_event")).to_contain_text("the public event of nightfall")
    expect(page.locator("input[name=_continue]")).to_have_count(0)


def test_staff_routes_memory_work_to_another_profile_and_a_bad_route_is_refused_at_its_field(staff_page, site):
    page = staff_page
    for name in ("offline for the browser", "strong for memory"):
        if not site.query("SELECT 1 FROM voyage_modelprofile WHERE name = %s", (name,)):
            manage(site.env, "shell", "-c", "from voyage.models import ModelProfile; "
                                            f"ModelProfile.objects.create(name={name!r})")
    runs = count(site, "voyage_run")
    fill_run_form(page)
    page.fill("#id_profile_routes", '{"memory": "no such profile"}')
    page.click("input[name=_save]")
    expect(page.locator(".field-profile_routes .errorlist")).to_contain_text("there is no model profile 'no such profile'")
    assert count(site, "voyage_run") == runs
    page.fill("#id_profile_routes", '{"memory": "strong for memory"}')
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("is ready to start")
    [(routes,)] = site.query("SELECT profile_routes FROM voyage_run ORDER BY id DESC LIMIT 1")
    assert json.loads(routes) == {"memory": "strong for memory"}
