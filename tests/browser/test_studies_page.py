"""The studies pages in a real browser: a staff user follows a study live while the worker advances
it, then compares its cells."""
import json
import re

from playwright.sync_api import expect

from voyage.fleet import manage, wait_for


def shown_tick(page, run_id: int) -> int:
    return int(page.locator(f"#run-{run_id} .ticks").inner_text().split("/")[0])


def test_a_study_moves_live_and_its_cells_compare(site, worker, staff_page, page_watch):
    made = json.loads(manage(site.env, "study", "create", "--name", "browser <i>study</i>", "--scenario", "edelweiss",
                             "--ticks", "150", "--vary", "seed=1,2", "--vary", "attrition_threshold=20,40",
                             "--parallel", "1"))
    first = made["started"][0]
    page = staff_page
    page.goto("/studies/")
    page.get_by_role("link", name="browser <i>study</i>").click()  # escaped: the name reads as typed
    expect(page.locator("h1")).to_have_text("browser <i>study</i>")
    assert page.locator("#study-runs tbody tr").count() == 4

    # the first run's progress moves on the page itself (no reload) while the worker advances it
    wait_for(lambda: 0 < shown_tick(page, first) < 150, 60, interval=0.2, what="the first run to show progress")
    seen = shown_tick(page, first)
    wait_for(lambda: shown_tick(page, first) > seen, 30, interval=0.2, what="the progress to move")
    expect(page.locator("#study-state")).to_have_text("finished", timeout=180_000)
    expect(page.locator(f"#run-{made['started'][0]} .state")).to_have_text("finished")

    page.reload()
    headers = page.locator("#measures thead th.cell")
    expect(headers).to_have_text(["attrition_threshold=20", "attrition_threshold=40"])
    # every cell holds a mean over its two seeds
    assert page.locator("#measures td[title='n=2']").count() > 10
    page.select_option("select[name=measure]", "words_normal")
    page.get_by_role("button", name="Draw").click()
    expect(page.locator("#chart svg title").first).to_have_text("words_normal by day")
    assert page.locator("#chart svg circle").count() == 2  # one day, two cells

    page.get_by_role("link", name=f"run {first}").click()
    expect(page).to_have_url(re.compile(rf"/runs/{first}/$"))
    assert not page_watch.page_errors and not page_watch.dialogs
