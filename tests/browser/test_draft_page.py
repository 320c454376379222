"""A storyteller drafts a world in the admin on the offline policy, on a real worker (the draft's page
shows the job until the worker has drafted it, reloading itself), reads the report, installs it (a
job of its own on the worker), and starts a run on it that the worker advances. Checked against the
database."""
import json

from playwright.sync_api import expect

from tests.browser.test_admin_pages import run_action, shown_tick, wait_until

PARAGRAPH = ("A boarding school on the moors of Ashcombe in the winter term: the chapel, the refectory, the "
             "library and the boiler room, and a prize cup missing from the trophy case.")


def test_staff_drafts_a_world_installs_it_and_starts_a_run_on_it(staff_page, site, worker):
    page = staff_page
    page.goto("/admin/world/scenario/")
    page.click("text=Draft a world")
    page.fill("#id_paragraph", PARAGRAPH)
    page.fill("#id_people", "4")
    page.fill("#id_rooms", "5")
    page.click("input[name=draft]")
    expect(page.locator("#draft-job")).to_contain_text("Drafting a world: 4 people, 5 rooms at most")
    [(job_id, paragraph)] = site.query("SELECT id, paragraph FROM voyage_draftjob WHERE kind = 'draft' "
                                       "ORDER BY id DESC LIMIT 1")
    assert paragraph == PARAGRAPH and page.url.endswith(f"/admin/world/scenario/draft/{job_id}/")
    report = page.locator("#draft-report")
    expect(report).to_contain_text("scripted: the offline policy, not a language model", timeout=120_000)
    expect(report).to_contain_text("audits: privacy 0 leaks")
    line = json.loads(page.locator("#draft-json").inner_text())
    assert line["valid"] and not line["installed"] and line["slug"] == "ashcombe-draft"
    assert site.query("SELECT COUNT(*) FROM world_scenario WHERE slug = %s", ("ashcombe-draft",))[0][0] == 0
    assert site.query("SELECT state FROM voyage_draftjob WHERE id = %s", (job_id,)) == [("done",)]

    page.click("input[name=install]")
    expect(page.locator(".messagelist")).to_contain_text("Scenario 'ashcombe-draft' installed", timeout=120_000)
    [(name,)] = site.query("SELECT name FROM world_scenario WHERE slug = %s", ("ashcombe-draft",))

    page.goto("/admin/voyage/run/add/")
    page.fill("#id_name", "the drafted school")
    page.select_option("#id_scenario", label=name)
    page.fill("#id_seed", "7")
    page.fill("#id_length", "1")
    page.select_option("#id_length_unit", "days")
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("ready to start: 4 agents")
    [(run_id,)] = site.query("SELECT id FROM voyage_run WHERE name = %s", ("the drafted school",))
    run_action(page, run_id, "Start selected runs on the worker")
    expect(page.locator(".messagelist")).to_contain_text(f"Started: run {run_id}.")
    wait_until("the worker to advance the run on the drafted world", lambda: shown_tick(page, run_id) > 0)
