"""Judging in a real browser: a staff user judges a run's day and its busiest scene from its overview
and sees the scores (the scene's row keyed scene:ROOM@A-B) with the judge's verdict beside them; a
two-arm memory ablation study is ranked from its report and the ranking shows as a picture beside the
verdict, and its judged day's believability (study create --judge) is a measure of the report with the
verdict beside each arm."""
import re

from playwright.sync_api import expect

from voyage.bench.fleet import manage, manage_json


def test_a_day_judged_from_the_page_shows_its_scores_and_verdict(site, small_run, staff_page, page_watch):
    page = staff_page
    page.goto(f"/runs/{small_run}/")
    panel = page.locator("#believability")
    expect(panel).to_contain_text("Not judged yet.")
    panel.get_by_label("day to judge").fill("1")
    panel.get_by_label("busiest scenes to judge").fill("1")
    panel.get_by_role("button", name="Judge this day").click()
    expect(panel.locator(".verdict")).to_have_text("reliable", timeout=60_000)
    expect(panel).to_contain_text("scripted, not a language model")
    assert panel.locator("tbody tr[data-agent]").count() == site.db.query(
        "SELECT COUNT(*) FROM agent_state WHERE run_id = %s", (small_run,))[0][0] + 1  # the agents, then the scene
    expect(panel.locator("thead th").nth(1)).to_have_text("persona_adherence")
    scene = panel.locator('tbody tr[data-agent^="scene:"]')
    expect(scene).to_have_count(1)
    expect(scene.locator("td").first).to_have_text(re.compile(r"^scene:[a-z0-9_]+@0-\d+$"))
    expect(scene.locator("td").last).to_have_text("reliable")
    assert any(re.fullmatch(r"\d+(\.\d+)?", t) for t in scene.locator("td").all_inner_texts()[1:-1])
    assert not page_watch.page_errors and not page_watch.dialogs


def test_a_two_arm_ablation_study_is_ranked_in_its_report(site, staff_page, page_watch):
    made = manage_json(site.env, "study", "create", "--name", "ablation in a browser", "--scenario", "edelweiss",
                       "--ticks", "30", "--vary", "memory=full,hot_window_only", "--judge", "default@1",
                       "--no-start")[0]
    manage(site.env, "study", "run", "ablation in a browser")
    page = staff_page
    page.goto(f"/studies/{made['study']}/report/")
    section = page.locator("#report-ranking")
    expect(section).to_contain_text("Not ranked yet")
    section.get_by_role("button", name="Rank the arms").click()
    expect(section.locator("svg.ranking")).to_be_visible(timeout=120_000)
    assert section.locator(".verdict").inner_text() in ("reliable", "doubtful", "unreliable")
    expect(section).to_contain_text("scripted, not a language model")
    rows = section.locator("tbody tr[data-arm]")
    expect(rows).to_have_count(2)
    assert {rows.nth(i).get_attribute("data-arm") for i in range(2)} == {"memory=full", "memory=hot_window_only"}
    assert section.locator("svg.ranking circle").count() == 2
    believed = page.locator('#report-measures tr[data-measure="judge_d1_overall"]')  # --judge: a measure
    expect(believed.locator(".arm-stat .verdict")).to_have_count(2)
    expect(believed.locator(".arm-stat .verdict").first).to_have_text("reliable (scripted)")
    assert not page_watch.page_errors and not page_watch.dialogs
