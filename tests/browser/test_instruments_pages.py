"""Interviews and interventions in a real browser (issue 23): staff open an agent, ask a question as
it stood at an earlier tick and read its answer; a hostile model's answer, and a hostile question,
stay text; staff pause a run, add a room event, resume, and find it in the feed and the room."""
from playwright.sync_api import expect

from tests.browser.hostile_openai import PAYLOADS, TITLE_PAYLOAD
from voyage.bench.fleet import wait_for
from voyage.gateway.offline_interview import CANNED
from world.time import sim_clock

EARLIER = 10


def _first_agent(site, run_id: int) -> str:
    [(key,)] = site.query("SELECT p.key FROM agent_state a JOIN world_persona p ON p.id = a.persona_id "
                          "WHERE a.run_id = %s ORDER BY p.key LIMIT 1", (run_id,))
    return key


def test_staff_ask_an_agent_at_an_earlier_tick_and_read_the_answer(staff_page, site, small_run):
    key = _first_agent(site, small_run)
    staff_page.goto(f"/runs/{small_run}/agents/{key}/")
    form = staff_page.locator("form.interview")
    expect(form.locator("input[name=tick]")).to_have_value("30")  # now, by default
    form.locator("textarea[name=question]").fill("What are you looking forward to?")
    form.locator("input[name=tick]").fill(str(EARLIER))
    form.locator("button[type=submit]").click()
    answer = staff_page.locator("article.interview").first
    expect(answer.locator(".question")).to_have_text("What are you looking forward to?")
    expect(answer.locator(".interview-meta")).to_contain_text(f"tick {EARLIER} · rung")
    [(tick, question, rung, said)] = site.query(
        "SELECT i.tick, i.question, i.rung, c.raw_answer FROM interviews i JOIN llm_calls c ON c.id = i.call_id "
        "WHERE i.run_id = %s ORDER BY i.id DESC LIMIT 1", (small_run,))
    assert (tick, question) == (EARLIER, "What are you looking forward to?")
    expect(answer.locator(".answer")).to_have_text(said)
    assert said.startswith(CANNED) and (sim_clock(EARLIER) in said) == (rung > 0)  # the clock needs a rung


def test_a_hostile_answer_to_a_hostile_question_stays_text(staff_page, page_watch, site, hostile_run,
                                                             hostile_server):
    key = _first_agent(site, hostile_run)
    staff_page.goto(f"/runs/{hostile_run}/agents/{key}/")
    title = staff_page.title()
    question = "Did you write " + " ".join(PAYLOADS) + "?"
    staff_page.locator("textarea[name=question]").fill(question)
    staff_page.locator("form.interview button[type=submit]").click()
    answer = staff_page.locator("article.interview").first
    expect(answer.locator(".question")).to_have_text(question)
    expect(answer.locator(".answer")).to_contain_text(PAYLOADS[0])  # the model's own payloads, as text
    expect(answer.locator(".answer")).to_contain_text(PAYLOADS[1])
    assert staff_page.title() == title != TITLE_PAYLOAD
    assert staff_page.locator("article.interview img").count() == 0
    assert staff_page.locator("article.interview script").count() == 0
    assert not page_watch.dialogs and not page_watch.page_errors


def test_pause_a_run_add_a_room_event_resume_and_see_it_in_the_feed_and_the_room(staff_page, page_watch, site,
                                                                                 advancing_run):
    run_id = advancing_run
    staff_page.goto(f"/runs/{run_id}/")
    staff_page.locator("button", has_text="Pause").click()
    wait_for(lambda: site.query("SELECT state, claimed_by FROM voyage_run WHERE id = %s", (run_id,))[0] == ("paused", ""),
             timeout=30, what="the worker to let the paused run go")
    [(room, room_name)] = site.query(
        "SELECT r.key, r.name FROM agent_state a JOIN world_room r ON r.id = a.location_id "
        "WHERE a.run_id = %s AND a.alive ORDER BY a.id LIMIT 1", (run_id,))
    tick = site.db.run_row(run_id)[0]
    words = "The lights go out. " + PAYLOADS[0]
    staff_page.goto(f"/runs/{run_id}/")
    form = staff_page.locator("form.intervene")
    form.locator("select[name=kind]").select_option("room_event")
    form.locator("select[name=room]").select_option(room)
    form.locator("textarea[name=text]").fill(words)
    form.locator("button[type=submit]").click()
    expect(staff_page.locator("ul.messages")).to_contain_text(f"Intervention at tick {tick} applied.")
    item = staff_page.locator("#feed li[data-kind=intervention]").first
    expect(item.locator(".what")).to_contain_text(f"Intervention by {site.staff[0]}: {words}")
    staff_page.locator("button", has_text="Resume").click()
    wait_for(lambda: site.db.run_row(run_id)[0] > tick + 1, timeout=60, what="the resumed run to advance")
    heard = site.query("SELECT count(*) FROM memory_stream WHERE run_id = %s AND tick = %s AND text = %s",
                       (run_id, tick, f"In the {room_name}: {words}"))[0][0]
    assert heard >= 1  # everyone in the room heard it (at least the agent found there)
    staff_page.goto(f"/runs/{run_id}/rooms/{room}/?tick={tick}")
    expect(staff_page.locator("main")).to_contain_text(words)
    assert staff_page.title() != TITLE_PAYLOAD and not page_watch.dialogs and not page_watch.page_errors
