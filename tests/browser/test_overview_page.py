"""The run overview (`/runs/<id>/`) in a real browser: the map and agents against the database, the
live feed and map while a worker advances a run, time travel against the event log, the control
buttons, who may see it, and model output that tries to run as code."""
import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import hostile_ticks, run_voyage
from tests.browser.hostile_openai import PAYLOADS, SAID, TITLE_PAYLOAD
from voyage.bench.fleet import Worker, manage, wait_for


def agents_now(site, run_id: int) -> dict[str, tuple[str, int, int, int]]:
    rows = site.query("SELECT p.key, r.key, a.rung, a.asleep, a.alive FROM agent_state a "
                      "JOIN world_persona p ON p.id = a.persona_id JOIN world_room r ON r.id = a.location_id "
                      "WHERE a.run_id = %s", (run_id,))
    return {key: (room, rung, bool(asleep), bool(alive)) for key, room, rung, asleep, alive in rows}


def rooms_from_event_log(site, run_id: int, tick: int) -> dict[str, str]:
    """Where everyone was after `tick` ticks, straight from the event log: the last move an agent
    made in ticks 0..tick-1 (a move numbered t is committed with tick t+1), or its home room."""
    where = dict(site.query("SELECT p.key, h.key FROM agent_state a JOIN world_persona p ON p.id = a.persona_id "
                            "JOIN world_room h ON h.id = p.home_node_id WHERE a.run_id = %s", (run_id,)))
    for key, room in site.query("SELECT p.key, r.key FROM event_log e JOIN agent_state a ON a.id = e.actor_id "
                                "JOIN world_persona p ON p.id = a.persona_id JOIN world_room r ON r.id = e.room_id "
                                "WHERE e.run_id = %s AND e.kind = 'move' AND e.tick < %s ORDER BY e.seq",
                                (run_id, tick)):
        where[key] = room
    return where


def markers(page) -> dict[str, dict]:
    return page.eval_on_selector_all("circle.agent", """ms => Object.fromEntries(ms.map(m => [m.dataset.agent,
        {room: m.dataset.room, cx: m.getAttribute('cx'), cy: m.getAttribute('cy'), cls: m.getAttribute('class')}]))""")


def test_the_map_and_the_agents_table_show_every_agent_where_the_database_has_it(staff_page, site, small_run):
    staff_page.goto(f"/runs/{small_run}/")
    expect(staff_page.locator("#clock")).to_have_text("Day 1, 07:30")
    db = agents_now(site, small_run)
    shown = markers(staff_page)
    assert set(shown) == set(db) and len(db) == 33
    for key, (room, rung, asleep, alive) in db.items():
        assert shown[key]["room"] == room
        assert f"rung-{rung}" in shown[key]["cls"] and ("asleep" in shown[key]["cls"]) == asleep
        row = staff_page.locator(f'#agents tr[data-agent="{key}"]')
        expect(row.locator(".rung")).to_contain_text(str(rung))
    # hover shows who it is; a click names the agent under the map
    climber = next(key for key, (_, rung, _, _) in db.items() if rung >= 1)
    staff_page.click(f'circle.agent[data-agent="{climber}"]')
    expect(staff_page.locator("#who")).to_contain_text("rung 1")
    [(events,)] = site.query("SELECT COUNT(*) FROM event_log WHERE run_id = %s", (small_run,))
    assert staff_page.locator("#feed li[data-seq]").count() == min(events, 150)


def test_the_feed_filters_by_kind_room_and_agent(staff_page, site, small_run):
    staff_page.goto(f"/runs/{small_run}/")
    staff_page.select_option("select[name=kind]", "move")
    expect(staff_page).to_have_url(re.compile(r"kind=move"))
    kinds = staff_page.eval_on_selector_all("#feed li", "ls => ls.map(l => l.dataset.kind)")
    [(moves,)] = site.query("SELECT COUNT(*) FROM event_log WHERE run_id = %s AND kind = 'move'", (small_run,))
    assert kinds and set(kinds) == {"move"} and len(kinds) == min(moves, 150)
    [(agent, room, n)] = site.query(
        "SELECT p.key, r.key, COUNT(*) FROM event_log e JOIN agent_state a ON a.id = e.actor_id "
        "JOIN world_persona p ON p.id = a.persona_id JOIN world_room r ON r.id = e.room_id WHERE e.run_id = %s "
        "GROUP BY p.key, r.key ORDER BY COUNT(*) DESC, p.key LIMIT 1", (small_run,))
    staff_page.goto(f"/runs/{small_run}/?agent={agent}&room={room}")
    lines = staff_page.eval_on_selector_all("#feed li", "ls => ls.map(l => [l.dataset.agent, l.dataset.room])")
    assert len(lines) == n and all(line == [agent, room] for line in lines)


def test_model_errors_retries_and_action_fails_are_in_the_feed_and_the_usage(staff_page, site, troubled_run):
    [(errors, retries, fails)] = site.query(
        "SELECT SUM(CASE WHEN answered THEN 0 ELSE 1 END), SUM(CASE WHEN answered AND attempts > 1 THEN 1 ELSE 0 END), "
        "SUM(CASE WHEN outcome = 'action_fail' OR NOT answered THEN 1 ELSE 0 END) FROM llm_calls WHERE run_id = %s",
        (troubled_run,))
    assert errors >= 1 and retries >= 1
    staff_page.goto(f"/runs/{troubled_run}/")
    expect(staff_page.locator("#feed li.k-model_error")).to_have_count(errors)
    expect(staff_page.locator("#feed li.k-model_error").first).to_contain_text("no answer after 4 attempt(s)")
    expect(staff_page.locator("#feed li.k-model_retry")).to_have_count(retries)
    expect(staff_page.locator("#feed li.k-action_fail").first).to_contain_text("ACTION_FAIL")
    action_row = staff_page.locator("table.usage").first.locator("tr", has_text="action")
    expect(action_row.locator("td").nth(4)).to_have_text(str(fails))  # failures
    staff_page.select_option("select[name=kind]", "model_error")
    expect(staff_page.locator("#feed li")).to_have_count(errors)


def test_a_run_the_worker_advances_shows_new_events_and_moves_markers_without_reloading(staff_page, advancing_run):
    staff_page.goto(f"/runs/{advancing_run}/")
    expect(staff_page.locator("#live-status")).to_have_attribute("data-connected", "1")
    staff_page.evaluate("window.__sameDocument = true")
    newest = staff_page.eval_on_selector_all("#feed li[data-seq]", "ls => Math.max(-1, ...ls.map(l => +l.dataset.seq))")
    before = markers(staff_page)
    staff_page.wait_for_function("n => [...document.querySelectorAll('#feed li[data-seq]')].some(l => +l.dataset.seq > n)",
                                 arg=newest, timeout=30_000)
    staff_page.wait_for_function("""before => [...document.querySelectorAll('circle.agent')].some(m =>
        m.getAttribute('cx') !== before[m.dataset.agent].cx || m.getAttribute('cy') !== before[m.dataset.agent].cy)""",
                                 arg=before, timeout=30_000)
    assert staff_page.evaluate("window.__sameDocument") is True
    moved = [k for k, m in markers(staff_page).items() if (m["cx"], m["cy"]) != (before[k]["cx"], before[k]["cy"])]
    assert moved


KEEP_SOCKETS = """(() => {
    const Native = window.WebSocket;
    window.__sockets = [];
    window.WebSocket = function (url, protocols) {
        const socket = new Native(url, protocols);
        window.__sockets.push(socket);
        return socket;
    };
    window.WebSocket.prototype = Native.prototype;
})();"""


def test_a_page_whose_connection_drops_reconnects_and_misses_nothing(staff_page, advancing_run):
    staff_page.add_init_script(KEEP_SOCKETS)  # lets the test cut the page's connection
    staff_page.goto(f"/runs/{advancing_run}/")
    status = staff_page.locator("#live-status")
    expect(status).to_have_attribute("data-connected", "1")
    seqs = "[...document.querySelectorAll('#feed li[data-seq]')].map(l => +l.dataset.seq)"
    first = staff_page.evaluate(f"{seqs}.pop()")
    staff_page.wait_for_function(f"n => {seqs}.pop() > n", arg=first, timeout=30_000)
    staff_page.evaluate("window.__sockets[0].close()")
    expect(status).to_have_attribute("data-connected", "0")
    cut = staff_page.evaluate(f"{seqs}.pop()")
    expect(status).to_have_attribute("data-connected", "1", timeout=10_000)
    assert "after=" in staff_page.evaluate("window.__sockets[1].url")
    staff_page.wait_for_function(f"n => {seqs}.pop() > n + 20", arg=cut, timeout=30_000)
    shown = staff_page.evaluate(seqs)
    assert shown == list(range(shown[0], shown[0] + len(shown)))  # every event once, in order, no gap


def test_dragging_the_time_travel_slider_shows_that_ticks_positions_from_the_event_log(staff_page, site, small_run):
    staff_page.goto(f"/runs/{small_run}/")
    slider = staff_page.locator("#travel")
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    staff_page.mouse.move(box["x"] + box["width"] - 4, box["y"] + box["height"] / 2)
    staff_page.mouse.down()
    staff_page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2, steps=8)
    staff_page.mouse.up()
    asof = staff_page.locator("#ship-asof")
    expect(asof).to_have_attribute("data-tick", re.compile(r"\d+"))
    tick = int(asof.get_attribute("data-tick"))
    assert 0 < tick < 30 and slider.input_value() == str(tick)
    expected = rooms_from_event_log(site, small_run, tick)
    staff_page.wait_for_function("""expected => [...document.querySelectorAll('circle.agent')].every(m =>
        m.dataset.room === expected[m.dataset.agent])""", arg=expected, timeout=10_000)
    assert expected != rooms_from_event_log(site, small_run, 30)  # the past differs from the present
    expect(staff_page.locator("#then")).to_be_visible()
    [(n,)] = site.query("SELECT COUNT(*) FROM event_log WHERE run_id = %s AND ((tick = %s AND kind NOT IN "
                        "('reflection', 'wind_down', 'nightfall', 'bulletin')) OR (tick = %s AND kind IN "
                        "('reflection', 'wind_down', 'nightfall', 'bulletin')))", (small_run, tick - 1, tick))
    expect(staff_page.locator("#then-events li")).to_have_count(n)
    staff_page.click("#back-to-live")
    now = agents_now(site, small_run)
    staff_page.wait_for_function("""now => [...document.querySelectorAll('circle.agent')].every(m =>
        m.dataset.room === now[m.dataset.agent])""", arg={k: v[0] for k, v in now.items()}, timeout=10_000)


def test_play_steps_through_the_ticks(staff_page, small_run):
    staff_page.goto(f"/runs/{small_run}/")
    staff_page.select_option("#speed", "30")
    staff_page.locator("#travel").evaluate("s => { s.value = 20; }")
    staff_page.click("#play")
    expect(staff_page.locator("#ship-asof")).to_have_attribute("data-tick", "30", timeout=10_000)
    expect(staff_page.locator("#play")).to_have_text("Play")


def test_start_pause_resume_and_stop_buttons_drive_the_run(staff_page, site, worker):
    run_id = int(manage(site.env, "shell", "-c", "from voyage.engine.runner import create_run; "
                        "from world.models import Scenario; "
                        "print(create_run(Scenario.objects.get(slug='1912'), seed=11, target_ticks=3000).pk)").split()[-1])
    staff_page.goto("/")
    row = staff_page.locator(f"#run-{run_id}")
    expect(row.locator(".ticks")).to_have_text("0/3000")
    row.locator("button", has_text="Start").click()
    wait_for(lambda: site.db.run_row(run_id)[0] > 0, timeout=60, what="the worker to take the started run")
    staff_page.locator(f"#run-{run_id}").locator("button", has_text="Pause").click()
    expect(staff_page.locator("ul.messages")).to_contain_text("is now paused")
    wait_for(lambda: site.db.run_row(run_id)[1] == "paused", timeout=5, what="the run to be paused")
    staff_page.wait_for_timeout(1000)  # the worker looks at the run's state every quarter second
    tick = site.db.run_row(run_id)[0]
    staff_page.wait_for_timeout(1500)
    assert site.db.run_row(run_id)[0] == tick  # it stands still
    staff_page.goto(f"/runs/{run_id}/")
    staff_page.locator("button", has_text="Resume").click()
    expect(staff_page).to_have_url(re.compile(rf"/runs/{run_id}/$"))
    wait_for(lambda: site.db.run_row(run_id)[0] > tick, timeout=60, what="the resumed run to advance")
    staff_page.locator("button", has_text="Stop").click()
    # no memory cluster runs here: the jobs its ticks asked for are still owed, and it says so
    expect(staff_page.locator("#run-state")).to_have_text(re.compile(r"^finished(; \d+ memory jobs? still running)?$"))
    assert site.db.run_row(run_id)[1] == "finished"


def test_a_control_the_run_cannot_take_says_why(staff_page, site, small_run):
    staff_page.goto("/")
    token = staff_page.eval_on_selector("input[name=csrfmiddlewaretoken]", "i => i.value")
    response = staff_page.request.post(f"/runs/{small_run}/control/resume/", form={"csrfmiddlewaretoken": token},
                                       headers={"Referer": site.url + "/"})
    assert response.ok and "has reached its target of 30 ticks" in response.text()


@pytest.mark.parametrize("path", ["/", "/runs.json", "/runs/{run}/", "/runs/{run}/ship.json", "/runs/{run}/ship.json?tick=3"])
def test_anonymous_visitors_are_sent_to_the_login_page(page, site, small_run, path):
    page.goto(path.format(run=small_run))
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next="))
    expect(page.locator("h1")).to_have_text("Log in")


def test_anonymous_websockets_get_nothing(page, site, small_run):
    page.goto("/accounts/login/")
    outcome = page.evaluate("""run => new Promise(resolve => {
        const ws = new WebSocket(`ws://${location.host}/ws/runs/${run}/feed/`);
        let opened = false;
        ws.onopen = () => { opened = true; };
        ws.onmessage = () => resolve("message");
        ws.onclose = () => resolve(opened ? "opened" : "refused");
        setTimeout(() => resolve("timeout"), 5000);
    })""", small_run)
    assert outcome == "refused"


def test_model_output_with_markup_and_scripts_is_shown_as_text_and_never_runs(staff_page, page_watch, site,
                                                                             hostile_server, hostile_run):
    staff_page.goto(f"/runs/{hostile_run}/")
    title = staff_page.title()
    expect(staff_page.locator("#live-status")).to_have_attribute("data-connected", "1")
    feed = staff_page.locator("#feed")
    expect(feed).to_contain_text(SAID)  # rendered by the server
    [(tick,)] = site.query("SELECT tick FROM voyage_run WHERE id = %s", (hostile_run,))
    hostile_ticks(site, hostile_server, tick + 2, hostile_run)  # more of it, live, while the page is open
    live = staff_page.locator("#feed li.fresh", has_text=SAID)
    expect(live.first).to_be_visible(timeout=20_000)  # inserted by the page's JavaScript
    staff_page.locator("#travel").evaluate("s => { s.value = 3; s.dispatchEvent(new Event('input')); }")
    expect(staff_page.locator("#then-events")).to_contain_text(SAID)  # time travel's list, also JavaScript
    for payload in PAYLOADS:
        expect(feed).to_contain_text(payload)
    assert staff_page.locator("#feed img, #then-events img, #feed script, #then-events script").count() == 0
    assert staff_page.title() == title == f"Run {hostile_run} · Voyage"
    staff_page.goto("/")  # the runs list, with the hostile run among the others
    assert staff_page.title() == "Runs · Voyage" and TITLE_PAYLOAD not in staff_page.content().split("<main>")[0]
    assert page_watch.dialogs == [] and page_watch.page_errors == [] and page_watch.console_errors == []


def test_the_map_leads_to_each_rooms_transcript_the_table_to_each_agent_and_a_link_to_the_pictures(
        staff_page, site, small_run):
    staff_page.goto(f"/runs/{small_run}/")
    room = staff_page.locator('svg.shipmap g.room[data-room="galley"] rect')
    box = room.bounding_box()
    with staff_page.expect_navigation() as opened:
        room.click(position={"x": box["width"] - 4, "y": box["height"] - 4})  # beside any marker
    assert opened.value.status == 200 and staff_page.url == f"{site.url}/runs/{small_run}/rooms/galley/"
    staff_page.go_back()
    with staff_page.expect_navigation() as opened:
        staff_page.locator('#agents tr[data-agent="clara_dunning"] a').click()
    assert opened.value.status == 200 and staff_page.url == f"{site.url}/runs/{small_run}/agents/clara_dunning/"
    staff_page.go_back()
    with staff_page.expect_navigation() as opened:
        staff_page.click("text=Pictures: rungs, trust, occupancy")
    assert opened.value.status == 200 and staff_page.url == f"{site.url}/runs/{small_run}/charts/"


def test_another_scenarios_ship_is_drawn_from_its_own_rooms_and_decks(staff_page, site):
    from tests.browser.conftest import run_voyage

    run_id = run_voyage(site, "--scenario", "edelweiss", "--ticks", "10")
    rooms = {key for (key,) in site.query("SELECT r.key FROM world_room r JOIN world_scenario s ON s.id = r.scenario_id "
                                          "WHERE s.slug = 'edelweiss'")}
    decks = {deck for (deck,) in site.query("SELECT DISTINCT r.deck FROM world_room r JOIN world_scenario s "
                                            "ON s.id = r.scenario_id WHERE s.slug = 'edelweiss'")}
    staff_page.goto(f"/runs/{run_id}/")
    shown_rooms = set(staff_page.eval_on_selector_all("svg.shipmap g.room", "gs => gs.map(g => g.dataset.room)"))
    shown_decks = set(staff_page.eval_on_selector_all("svg.shipmap .deck-label", "ls => ls.map(l => l.textContent)"))
    assert shown_rooms == rooms and shown_decks == decks
    assert set(markers(staff_page)) == set(agents_now(site, run_id))
    for key, (room, *_rest) in agents_now(site, run_id).items():
        assert markers(staff_page)[key]["room"] == room


def test_a_finished_run_still_owed_memory_work_says_so_until_it_is_done(staff_page, site):
    """Finished on the tick worker, its compaction and dreams queued for a memory worker: not a bare
    'finished' until the memory cluster has done them."""
    run = run_voyage(site, "--scenario", "edelweiss", "--ticks", "40", "--seed", "5", "--memory-worker")
    [(owed,)] = site.query("SELECT COUNT(*) FROM memory_jobs_pending WHERE run_id = %s", (run,))
    assert owed > 0
    staff_page.goto(f"/runs/{run}/")
    expect(staff_page.locator("#run-state")).to_have_text(
        f"finished; {owed} memory job{'s' if owed != 1 else ''} still running")
    memory = Worker(site.env, site.db.dir / "memory.log", cluster="memory")
    try:
        wait_for(lambda: not site.query("SELECT COUNT(*) FROM memory_jobs_pending WHERE run_id = %s", (run,))[0][0],
                 120, interval=0.5, what="the memory worker to do the run's jobs")
    finally:
        memory.kill()
    staff_page.reload()
    expect(staff_page.locator("#run-state")).to_have_text("finished")


def test_a_running_simultaneous_runs_leads_show_per_agent_and_follow_the_live_ship(staff_page, site):
    """The engine's Run.leads, written here by hand: each agent's '+N' and the mean and max, then new
    leads drawn from ship.json when the page goes back to live."""
    run = run_voyage(site, "--scenario", "edelweiss", "--ticks", "2", "--schedule", "simultaneous", "--run-ahead", "2")
    keys = sorted(key for (key,) in site.query("SELECT p.key FROM agent_state a JOIN world_persona p "
                                               "ON p.id = a.persona_id WHERE a.run_id = %s", (run,)))
    leads = {"now": {key: i % 3 for i, key in enumerate(keys)}, "sum": 9.0, "n": 12, "max": 2}
    site.db.execute("UPDATE voyage_run SET state = 'running', leads = %s WHERE id = %s", (json.dumps(leads), run))
    try:
        staff_page.goto(f"/runs/{run}/")
        expect(staff_page.locator("#leads")).to_contain_text("mean +0.75, max +2 ticks (run_ahead 2)")
        for key in keys:
            expect(staff_page.locator(f'#agents tr[data-agent="{key}"] .ahead')).to_have_text(f"+{leads['now'][key]}")
        leads["now"][keys[0]] = 1
        site.db.execute("UPDATE voyage_run SET leads = %s WHERE id = %s", (json.dumps(leads), run))
        staff_page.click("#back-to-live")  # refreshes from ship.json, as a new tick's events would
        expect(staff_page.locator(f'#agents tr[data-agent="{keys[0]}"] .ahead')).to_have_text("+1")
    finally:
        site.db.execute("UPDATE voyage_run SET state = 'finished' WHERE id = %s", (run,))
