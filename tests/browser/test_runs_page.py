"""The runs list (`/`): logging in, who may see it, what it shows, and its control buttons."""
import re

from playwright.sync_api import expect

from tests.browser.conftest import log_in


def test_staff_log_in_and_see_every_run_with_its_clock_and_usage(page, site, small_run):
    log_in(page, *site.staff)
    expect(page).to_have_url(site.url + "/")
    row = page.locator(f"#run-{small_run}")
    expect(row.locator(".state")).to_have_text("finished")
    expect(row.locator(".clock-cell")).to_have_text("Day 1, 07:30")  # 30 ticks of 3 minutes after 06:00
    [(calls, tokens)] = site.query("SELECT COUNT(*), SUM(prompt_tokens + completion_tokens) FROM llm_calls "
                                   "WHERE run_id = %s", (small_run,))
    expect(row.locator("td.num").nth(0)).to_have_text(str(calls))
    expect(row.locator("td.num").nth(1)).to_have_text(str(tokens))
    page.click("text=Log out")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/$"))


def test_a_wrong_password_is_refused_with_a_message(page, site):
    log_in(page, site.staff[0], "not-the-password")
    expect(page.locator(".error")).to_contain_text("did not match")


def test_a_logged_in_user_who_is_not_staff_gets_403(page, site):
    log_in(page, *site.visitor)
    response = page.goto("/")
    assert response.status == 403
    expect(page.locator("h1")).to_have_text("Not allowed")


def test_the_stylesheet_is_served_by_daphne(staff_page):
    staff_page.goto("/")
    response = staff_page.request.get("/static/voyage.css")
    assert response.status == 200 and "svg.shipmap" in response.text()
    background = staff_page.eval_on_selector("header.site", "e => getComputedStyle(e).backgroundColor")
    assert background == "rgb(20, 38, 61)"  # #14263d from voyage.css


def test_the_list_follows_a_running_run_without_reloading(staff_page, advancing_run):
    staff_page.goto("/")
    staff_page.evaluate("window.__sameDocument = true")
    ticks = staff_page.locator(f"#run-{advancing_run} .ticks")
    before = ticks.inner_text()
    staff_page.wait_for_function("([sel, was]) => document.querySelector(sel).textContent !== was",
                                 arg=[f"#run-{advancing_run} .ticks", before], timeout=15_000)
    assert staff_page.evaluate("window.__sameDocument") is True
    assert int(ticks.inner_text().split("/")[0]) > int(before.split("/")[0])
