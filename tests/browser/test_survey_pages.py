"""Surveys in a real browser (issue 32): staff open a run, go to its surveys, put a questionnaire to the
agents as of an earlier tick, and read the answers, which match the database; a questionnaire whose
words are markup stays text; a bad one is refused naming the item and key, keeping what was typed;
the pages are staff-only."""
from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.hostile_openai import PAYLOADS, TITLE_PAYLOAD
from voyage.bench.fleet import manage, wait_for

EARLIER = 12
QUESTIONNAIRE = """title: Life aboard
items:
  - {id: safe, text: How safe do you feel here?, kind: scale, scale: {min: 1, max: 5, min_label: not at all, max_label: completely}}
  - id: leader
    text: Who speaks for the group?
    kind: choice
    options: [%s, %s]
  - {id: wish, text: What do you wish for?, kind: text}
""" % (json.dumps(PAYLOADS[0]), json.dumps(PAYLOADS[1]))


def test_staff_run_a_survey_at_an_earlier_tick_and_read_its_answers(staff_page, page_watch, site, small_run):
    staff_page.goto(f"/runs/{small_run}/")
    title = staff_page.title()
    staff_page.get_by_role("link", name="Surveys").click()
    form = staff_page.locator("form.survey")
    expect(form.locator("input[name=tick]")).to_have_value("30")
    form.locator("textarea[name=text]").fill(QUESTIONNAIRE)
    form.locator("input[name=tick]").fill(str(EARLIER))
    form.locator("button[type=submit]").click()
    expect(staff_page.locator("h1")).to_have_text("Life aboard")
    expect(staff_page.locator(".survey-meta")).to_contain_text(f"as of tick {EARLIER}")
    expect(staff_page.locator(".scripted")).to_contain_text("not a language model")
    [(survey_id, tick, agents)] = site.query("SELECT id, tick, agents FROM surveys WHERE run_id = %s "
                                             "ORDER BY id DESC LIMIT 1", (small_run,))
    assert tick == EARLIER and agents > 0
    stored = site.query("SELECT p.key, a.item, a.value, a.missing_reason FROM survey_answers a "
                        "JOIN agent_state s ON s.id = a.agent_id JOIN world_persona p ON p.id = s.persona_id "
                        "WHERE a.survey_id = %s ORDER BY p.key, a.id", (survey_id,))
    rows = staff_page.locator("table.survey-answers tbody tr")
    expect(rows).to_have_count(agents * 3)
    for i, (key, item, value, reason) in enumerate(stored[:6]):
        row = rows.nth(i)
        expect(row).to_have_attribute("data-agent", key)
        expect(row).to_have_attribute("data-item", item)
        expect(row.locator(".answer")).to_have_text(str(json.loads(value)))
        expect(row.locator(".reason")).to_have_text(reason)
    # The markup options were chosen by someone, and they show as the words they are.
    leaders = staff_page.locator("table.survey-answers tr[data-item=leader] .answer")
    expect(leaders.first).to_have_text(json.loads(stored[1][2]))
    assert {json.loads(v) for _, item, v, _ in stored if item == "leader"} <= set(PAYLOADS[:2])
    expect(staff_page.locator("table.survey-summary tr[data-item=leader] .summary")).to_contain_text("script")
    assert staff_page.locator("main script, main img").count() == 0
    assert staff_page.title() != TITLE_PAYLOAD and TITLE_PAYLOAD not in title
    # The run's surveys page lists it; the CSV has one row per agent and item.
    staff_page.goto(f"/runs/{small_run}/surveys/")
    expect(staff_page.locator("table.surveys")).to_contain_text("Life aboard")
    csv = staff_page.request.get(f"/runs/{small_run}/surveys/{survey_id}/answers.csv").text()
    assert csv.splitlines()[0] == "run,tick,agent,rung,item,kind,answer,missing_reason"
    assert len(csv.strip().splitlines()) == 1 + agents * 3
    assert not page_watch.dialogs and not page_watch.page_errors


def test_a_bad_questionnaire_is_refused_naming_item_and_key(staff_page, site, small_run):
    staff_page.goto(f"/runs/{small_run}/surveys/")
    before = site.query("SELECT count(*) FROM surveys WHERE run_id = %s", (small_run,))[0][0]
    bad = "title: T\nitems:\n  - {id: mood, text: How are you?, kind: rating}\n"
    staff_page.locator("form.survey textarea[name=text]").fill(bad)
    staff_page.locator("form.survey button[type=submit]").click()
    expect(staff_page.locator("ul.messages")).to_contain_text("line 3: items[0] (mood).kind: must be one of")
    expect(staff_page.locator("form.survey textarea[name=text]")).to_have_value(bad)
    assert site.query("SELECT count(*) FROM surveys WHERE run_id = %s", (small_run,))[0][0] == before


def test_survey_pages_are_for_staff_only(page, site, small_run, tmp_path):
    path = tmp_path / "q.yaml"
    path.write_text(QUESTIONNAIRE, encoding="utf-8")
    [(key,)] = site.query("SELECT p.key FROM agent_state a JOIN world_persona p ON p.id = a.persona_id "
                          "WHERE a.run_id = %s ORDER BY p.key LIMIT 1", (small_run,))
    manage(site.env, "survey", str(small_run), "--questionnaire", str(path), "--agents", key, "-o",
           str(tmp_path / "a.csv"))
    [(survey_id,)] = site.query("SELECT id FROM surveys WHERE run_id = %s ORDER BY id DESC LIMIT 1", (small_run,))
    log_in(page, *site.visitor)
    assert page.goto(f"/runs/{small_run}/surveys/").status == 403
    assert page.goto(f"/runs/{small_run}/surveys/{survey_id}/").status == 403
    assert page.request.get(f"/runs/{small_run}/surveys/{survey_id}/answers.csv").status == 403
    assert page.request.post(f"/runs/{small_run}/surveys/new/", form={"text": QUESTIONNAIRE}).status == 403


def test_a_study_made_in_the_admin_surveys_its_arms_on_the_worker_and_compares_the_items(site, worker, memory_worker,
                                                                                        staff_page, page_watch):
    page = staff_page
    # A questionnaire saved in the admin; a broken one first, refused naming its item and key.
    page.goto("/admin/instruments/questionnaire/add/")
    page.locator("input[name=name]").fill("aboard")
    page.locator("textarea[name=text]").fill("title: T\nitems:\n  - {id: a, text: A?, kind: rating}\n")
    page.locator("input[name=_save]").click()
    expect(page.locator(".errorlist")).to_contain_text("line 3: items[0] (a).kind: must be one of")
    page.locator("textarea[name=text]").fill(QUESTIONNAIRE)
    page.locator("input[name=_save]").click()
    expect(page.locator("ul.messagelist")).to_contain_text("aboard")
    # A study over an intervention, surveyed at the fork tick and at the end.
    page.goto("/admin/studies/study/add/")
    page.locator("input[name=name]").fill("surveyed lamp")
    page.locator("select[name=scenario]").select_option("edelweiss")
    page.locator("input[name=ticks]").fill("20")
    page.locator("textarea[name=axes]").fill("intervention=none,lamp")
    page.locator("textarea[name=interventions]").fill(
        'lamp={"kind": "object_place", "tick": 10, "name": "Brass lamp", "room": "east_corridor", "text": "It hums."}')
    page.locator("textarea[name=surveys]").fill("aboard@10\naboard@20")
    page.locator("input[name=_save]").click()
    expect(page.locator("ul.messagelist")).to_contain_text("3 runs made")
    [(study_id,)] = site.query("SELECT id FROM studies_study WHERE name = 'surveyed lamp'")
    arms = [r for (r,) in site.query("SELECT run_id FROM studies_studyrun WHERE study_id = %s AND NOT is_base "
                                      "ORDER BY position", (study_id,))]
    wait_for(lambda: site.query("SELECT count(*) FROM surveys WHERE made_by = 'study surveyed lamp'")[0][0] == 4,
             240, interval=0.5, what="the worker to finish the arms and survey each at ticks 10 and 20")
    surveyed = site.query("SELECT run_id, tick FROM surveys WHERE made_by = 'study surveyed lamp' ORDER BY run_id, tick")
    assert surveyed == [(run, tick) for run in sorted(arms) for tick in (10, 20)]
    page.goto(f"/studies/{study_id}/")
    expect(page.locator("#study-state")).to_have_text("finished", timeout=60_000)
    measures = page.locator("#measures tbody th")
    for name in ("survey_t10_safe_mean", "survey_t20_safe_mean", "survey_t20_safe_missing", "survey_t20_wish_missing"):
        expect(measures.filter(has_text=name)).to_have_count(1)
    expect(page.locator("#measures thead th.cell")).to_have_text(["intervention=none", "intervention=lamp"])
    # Each arm's mean is the mean of its agents' answers, as stored.
    row = page.locator("#measures tbody tr", has=page.locator("th", has_text="survey_t20_safe_mean"))
    for i, run in enumerate(arms):
        values = [int(v) for (v,) in site.query(
            "SELECT a.value FROM survey_answers a JOIN surveys s ON s.id = a.survey_id "
            "WHERE s.run_id = %s AND s.tick = 20 AND a.item = 'safe'", (run,))]
        mean = sum(values) / len(values)
        expect(row.locator("td").nth(i)).to_have_text(f"{mean:.4g}")
    page.select_option("select[name=measure]", "survey_t20_safe_mean")
    page.get_by_role("button", name="Draw").click()
    expect(page.locator("#chart svg title").first).to_have_text("survey_t20_safe_mean by day")
    # The study's report: each arm's answers to a scale item, spread over its points as stored.
    page.goto(f"/studies/{study_id}/report/")
    table = page.locator('table.survey-item[data-item="t20_safe"]')
    expect(table.locator("caption")).to_contain_text("How safe do you feel here?")
    for arm, run in zip(("intervention=none", "intervention=lamp"), arms):
        values = [int(v) for (v,) in site.query(
            "SELECT a.value FROM survey_answers a JOIN surveys s ON s.id = a.survey_id "
            "WHERE s.run_id = %s AND s.tick = 20 AND a.item = 'safe'", (run,))]
        shares = [f"{values.count(p) / len(values):.3f}" for p in range(1, 6)]
        expect(table.locator(f'tr[data-arm="{arm}"] td.share')).to_have_text(shares)
    expect(page.locator("#report-measures th", has_text="survey_t20_safe_mean")).to_have_count(1)
    assert not page_watch.page_errors and not page_watch.dialogs
