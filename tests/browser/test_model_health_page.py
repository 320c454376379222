"""Model health on the run overview and the agent inspector, in a real browser: a run whose model
(a local OpenAI-protocol server) answers every action with the turn's example answer is warned
about in plain words, with links to the calls that show it; the offline policy's run says it is
a script and is not warned about."""
import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import run_voyage
from voyage.bench.fleet import manage_json


@pytest.fixture(scope="session")
def copying_run(site) -> tuple[int, dict]:
    from voyage.bench.fake_openai_server import FakeOpenAI

    with FakeOpenAI(copy_example=True) as server:
        line = manage_json(site.env, "run_voyage", "--ticks", "3", "--base-url", server.base_url)[-1]
    return line["run_id"], line


def test_run_voyage_reports_the_copying_and_warns(copying_run):
    _, line = copying_run
    health = line["model_health"]
    assert health["example_copy_share"] == 1.0 and health["action_calls"] >= 10
    assert any(w.startswith("most answers copy the example answer") for w in health["warnings"])


def test_the_overview_warns_that_the_model_copies_its_example_and_links_to_the_calls(staff_page, site, copying_run):
    run_id, _ = copying_run
    staff_page.goto(f"/runs/{run_id}/")
    warning = staff_page.locator("#model-health .health-warning[data-code=example_copy]")
    expect(warning).to_contain_text("Most answers copy the example answer")
    expect(warning).to_contain_text("the model's choices are not its own")
    expect(staff_page.locator("#model-health tr[data-figure=example_copy_share] td.num")).to_have_text("1.00")
    # usage by the profile that answered: one profile here, all the run's calls
    [(calls, profile)] = site.query("SELECT COUNT(*), MAX(profile) FROM llm_calls WHERE run_id = %s", (run_id,))
    by_profile = staff_page.locator("h2:has-text('By profile') + table.usage tbody tr")
    expect(by_profile).to_have_count(1)
    expect(by_profile.locator("td").nth(0)).to_have_text(profile)
    expect(by_profile.locator("td").nth(1)).to_have_text(str(calls))
    link = warning.locator("a.health-call").first
    call_id = int(link.get_attribute("href").rstrip("/").rsplit("/", 1)[1])
    link.click()
    expect(staff_page.locator("body")).to_contain_text("An example of the form only")
    [(raw, prompt_tick)] = site.query("SELECT raw_answer, tick FROM llm_calls WHERE id = %s", (call_id,))
    assert json.loads(raw)["internal_monologue"]  # the copied answer, shown on the call's page
    expect(staff_page.locator("body")).to_contain_text(json.loads(raw)["internal_monologue"])


def test_the_inspector_shows_the_agents_health_by_day(staff_page, site, copying_run):
    run_id, _ = copying_run
    [(key,)] = site.query("SELECT p.key FROM agent_state a JOIN world_persona p ON p.id = a.persona_id "
                          "WHERE a.run_id = %s ORDER BY p.key LIMIT 1", (run_id,))
    staff_page.goto(f"/runs/{run_id}/")
    staff_page.locator("#agents a").first.click()
    panel = staff_page.locator("#model-health")
    expect(panel.locator("tr[data-figure=example_copy_share] td.num")).to_have_text("1.00")
    expect(panel.locator("table.health-days tbody tr")).to_have_count(1)
    expect(panel.locator(".health-warning").first).to_contain_text("In this run: most answers copy the example")


def test_the_offline_policy_says_it_is_a_script_and_is_not_warned_about(staff_page, small_run):
    staff_page.goto(f"/runs/{small_run}/")
    expect(staff_page.locator("#health-scripted")).to_contain_text("The offline policy is a script, not a model")
    expect(staff_page.locator("#model-health .health-warning")).to_have_count(0)
    expect(staff_page.locator("#model-health tr[data-figure=repeat_share] td.num")).not_to_have_text("–")


@pytest.fixture(scope="session")
def stray_run(site) -> int:
    """A model that fills in every key (as Anthropic's endpoint, which ignores response_format, does):
    a shout and words with every sleep, examination and walk."""
    from tests.provider_servers import StrayFieldsServer

    env = {**site.env, "VOYAGE_STRAY_TEST_KEY": "sk-test-stray"}
    with StrayFieldsServer(kinds=("sleep", "interact", "move"), words="<b>never said</b> & gone", volume="shout") as s:
        return manage_json(env, "run_voyage", "--ticks", "2", "--provider", "anthropic", "--base-url", s.base_url,
                           "--model", "m", "--api-key-env", "VOYAGE_STRAY_TEST_KEY")[-1]["run_id"]


def test_fields_an_action_ignores_are_counted_by_profile_and_shown_on_the_call(staff_page, site, stray_run):
    staff_page.goto(f"/runs/{stray_run}/")
    panel = staff_page.locator("#model-health")
    expect(panel.locator("tr[data-figure=ignored_field_share] td.num")).to_have_text("1.00")
    expect(panel.locator("tr[data-figure=action_fail_share] td.num")).to_have_text("0.00")
    warning = panel.locator(".health-warning[data-code=ignored_fields]")
    expect(warning).to_contain_text("Many answers fill in what their action does not use")
    expect(warning).to_contain_text("The agents lose nothing by it")
    [(profile,)] = site.query("SELECT p.name FROM voyage_modelprofile p JOIN voyage_run r ON r.profile_id = p.id "
                              "WHERE r.id = %s", (stray_run,))
    row = panel.locator(f"table.health-profiles tr[data-profile='{profile}']")
    expect(row.locator("td[data-figure=ignored_field_share]")).to_have_text("1.00")
    warning.locator("a.health-call").first.click()
    expect(staff_page.locator(".call-facts")).to_contain_text(re.compile(r"ok: volume and dialogue ignored: "
                                                                         r"(sleep|interact|move)"))
    expect(staff_page.locator("pre.answer")).to_contain_text("<b>never said</b> & gone")  # as text, escaped
    expect(staff_page.locator("pre.answer b")).to_have_count(0)
    key = staff_page.url.rstrip("/").split("/agents/")[1].split("/")[0]
    staff_page.goto(f"/runs/{stray_run}/agents/{key}/")  # the inspector's last calls say it too
    expect(staff_page.locator("#calls .detail", has_text="volume and dialogue ignored:").first).to_be_visible()
