"""Room transcripts, the agent inspector and the pictures in a real browser, on the shared site
(tests/browser/conftest.py): reading a whisper with who heard it, searching a memory, downloading a
room's Markdown, a live room, hostile model output shown as text, and the login wall."""
import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import run_voyage
from tests.browser.hostile_openai import PAYLOADS, TITLE_PAYLOAD
from voyage.bench.fleet import manage, wait_for

WHISPERED = "WHISPERED"


@pytest.fixture(scope="module")
def talk_run(site) -> int:
    """Sixty offline ticks (seed 1912): long enough for whispers in the ship's vast rooms."""
    return run_voyage(site, "--ticks", "60", "--seed", "1912")


def _names(site) -> dict[str, str]:
    return dict(site.query("SELECT key, display_name FROM world_persona"))


def _vast_whisper(site, run_id: int):
    """From the event log: a targeted whisper in a vast room that a bystander saw pass."""
    rows = site.query("SELECT e.seq, e.tick, e.text, e.data, r.key FROM event_log e JOIN world_room r ON r.id = e.room_id "
                      "WHERE e.run_id = %s AND e.kind = 'communicate' AND r.scale = 'vast' ORDER BY e.seq", (run_id,))
    for seq, tick, text, data, room in rows:
        data = json.loads(data) if isinstance(data, str) else data
        if data["volume"] == "whisper" and WHISPERED in data["delivered"].values():
            return seq, tick, text, data, room
    pytest.fail(f"run {run_id} has no whisper in a vast room with a bystander")


def test_a_vast_room_whisper_shows_staff_its_words_and_who_heard_it(staff_page, site, talk_run):
    seq, tick, text, data, room = _vast_whisper(site, talk_run)
    names = _names(site)
    staff_page.goto(f"/runs/{talk_run}/rooms/{room}/?tick={tick}")
    line = staff_page.locator(f"#e{seq}")
    expect(line.locator(".volume")).to_have_text("whisper")
    expect(line.locator(".words")).to_have_text(text)
    expect(line.locator(".target")).to_have_text(names[data["target"]])
    heard = sorted(names[k] for k, mode in data["delivered"].items() if mode == "HEARD")
    saw = sorted(names[k] for k, mode in data["delivered"].items() if mode == WHISPERED)
    expect(line.locator(".mode-HEARD")).to_have_text("heard: " + ", ".join(heard))
    expect(line.locator(".mode-WHISPERED")).to_have_text("saw a whisper pass: " + ", ".join(saw))


def test_search_an_agents_memory_and_find_a_row(staff_page, site, talk_run):
    [(row_id, text, key)] = site.query(
        "SELECT m.id, m.text, p.key FROM memory_stream m JOIN agent_state a ON a.id = m.agent_id "
        "JOIN world_persona p ON p.id = a.persona_id WHERE m.run_id = %s AND m.kind = 'examined' "
        "ORDER BY m.id LIMIT 1", (talk_run,))
    word = max(re.findall(r"[A-Za-z]{6,}", text), key=len)  # a distinctive word of the row
    staff_page.goto(f"/runs/{talk_run}/agents/{key}/")
    staff_page.click("nav.tabs >> text=Memory stream")
    staff_page.fill("input[name=q]", word)
    staff_page.click("form.search button")
    expect(staff_page).to_have_url(re.compile(r"/memory/\?q="))
    expect(staff_page.locator("ol.hits li", has_text=f"row {row_id}")).to_contain_text(text[:60])


def test_download_a_rooms_markdown_the_same_as_the_transcript_command(staff_page, site, talk_run):
    *_, room = _vast_whisper(site, talk_run)
    staff_page.goto(f"/runs/{talk_run}/rooms/{room}/")
    with staff_page.expect_download() as info:
        staff_page.click("text=Markdown")
    downloaded = open(info.value.path(), encoding="utf-8").read()
    expected = manage(site.env, "transcript", "--run", str(talk_run), "--room", room)
    assert downloaded == expected
    assert "whisper" in downloaded


def test_a_room_transcript_grows_live_while_the_run_advances(staff_page, site, advancing_run):
    # The room busiest over the last few ticks, once everyone is up and about (at tick 1 a room holds
    # only its sleepers waking, and may stay quiet for a while).
    wait_for(lambda: site.db.run_row(advancing_run)[0] >= 10, timeout=120, what="the run to pass tick 10")
    [(room,)] = site.query("SELECT r.key FROM event_log e JOIN world_room r ON r.id = e.room_id WHERE e.run_id = %s "
                           "AND e.tick >= (SELECT MAX(tick) FROM event_log WHERE run_id = %s) - 5 "
                           "GROUP BY r.key ORDER BY COUNT(*) DESC, r.key LIMIT 1", (advancing_run, advancing_run))
    staff_page.goto(f"/runs/{advancing_run}/rooms/{room}/")
    first_last = int(staff_page.locator("#transcript").get_attribute("data-last"))
    staff_page.evaluate("window.notReloaded = true")
    newest = staff_page.locator("#transcript .line").last
    expect(newest).not_to_have_attribute("data-seq", str(first_last), timeout=30_000)
    seq = int(newest.get_attribute("data-seq"))
    assert seq > first_last and staff_page.evaluate("window.notReloaded === true")
    [(kind,)] = site.query("SELECT kind FROM event_log WHERE run_id = %s AND seq = %s", (advancing_run, seq))
    expect(staff_page.locator(f"#e{seq} .kind")).to_have_text(kind)


def test_hostile_model_output_is_shown_as_text_and_never_runs(staff_page, page_watch, site, hostile_run):
    [(room, key)] = site.query(
        "SELECT r.key, p.key FROM event_log e JOIN world_room r ON r.id = e.room_id JOIN agent_state a ON a.id = e.actor_id "
        "JOIN world_persona p ON p.id = a.persona_id WHERE e.run_id = %s AND e.kind = 'communicate' "
        "ORDER BY e.seq LIMIT 1", (hostile_run,))
    [(call,)] = site.query("SELECT c.id FROM llm_calls c JOIN agent_state a ON a.id = c.agent_id JOIN world_persona p "
                           "ON p.id = a.persona_id WHERE c.run_id = %s AND p.key = %s AND c.purpose = 'action' "
                           "ORDER BY c.id DESC LIMIT 1", (hostile_run, key))
    agent = f"/runs/{hostile_run}/agents/{key}"
    showing_payloads = [f"/runs/{hostile_run}/rooms/{room}/", f"{agent}/", f"{agent}/calls/{call}/",
                        f"{agent}/memory/", f"{agent}/memory/?q=ice"]
    for url in showing_payloads + [f"{agent}/past/", f"{agent}/trust/", f"/runs/{hostile_run}/charts/"]:
        staff_page.goto(url)
        title = staff_page.title()
        staff_page.locator("details").evaluate_all("ds => ds.forEach(d => d.open = true)")
        if url in showing_payloads:
            for payload in PAYLOADS:
                expect(staff_page.locator("main")).to_contain_text(payload)
        staff_page.wait_for_timeout(200)
        assert staff_page.title() == title and TITLE_PAYLOAD not in title, url
    assert page_watch.dialogs == [] and page_watch.console_errors == [] and page_watch.page_errors == []


def test_anonymous_visitors_are_sent_to_the_login_page(page, talk_run):
    for url in (f"/runs/{talk_run}/rooms/cabin_b52/", f"/runs/{talk_run}/agents/harold_ashcombe/",
                f"/runs/{talk_run}/agents/harold_ashcombe/memory/?q=name", f"/runs/{talk_run}/charts/"):
        page.goto(url)
        expect(page).to_have_url(re.compile(r"/accounts/login/\?next="))
        expect(page.locator("#id_username")).to_be_visible()


def test_the_trust_picture_at_a_chosen_tick_matches_the_trust_history(staff_page, site, talk_run):
    staff_page.goto(f"/runs/{talk_run}/charts/")
    expect(staff_page.locator("svg")).to_have_count(4)
    staff_page.locator("input[name=tick]").fill("20")
    staff_page.click("#trust-chart button")
    expect(staff_page).to_have_url(re.compile(r"/charts/\?tick=20$"))
    expect(staff_page.locator("#trust-chart h2")).to_contain_text("Day 1, 07:00")
    [(pairs,)] = site.query("SELECT COUNT(DISTINCT h.entry_id) FROM trust_history h JOIN trust_ledger t ON t.id = h.entry_id "
                            "WHERE t.run_id = %s AND h.tick <= 20", (talk_run,))
    assert pairs > 0
    expect(staff_page.locator("#trust-chart rect.cell")).to_have_count(pairs)


def test_an_agents_trust_ledger_shows_each_entry_with_its_history(staff_page, site, talk_run):
    [(key, other, label, changes)] = site.query(
        "SELECT p.key, o.display_name, t.label, (SELECT COUNT(*) FROM trust_history h WHERE h.entry_id = t.id) "
        "FROM trust_ledger t JOIN agent_state a ON a.id = t.agent_id JOIN world_persona p ON p.id = a.persona_id "
        "JOIN agent_state b ON b.id = t.other_id JOIN world_persona o ON o.id = b.persona_id "
        "WHERE t.run_id = %s ORDER BY t.id LIMIT 1", (talk_run,))
    staff_page.goto(f"/runs/{talk_run}/agents/{key}/")
    staff_page.click("nav.tabs >> text=Trust ledger")
    row = staff_page.locator("table.trust tbody tr", has_text=other)
    expect(row.locator("td").nth(2)).to_have_text(label)
    expect(row.locator("ol.history li")).to_have_count(changes)


def _heard_pairs(site, run_id: int) -> dict[tuple[str, str], int]:
    """speaker key, listener key -> utterances whose words the listener HEARD, from the event log."""
    pairs: dict = {}
    for speaker, data in site.query("SELECT p.key, e.data FROM event_log e JOIN agent_state a ON a.id = e.actor_id "
                                    "JOIN world_persona p ON p.id = a.persona_id WHERE e.run_id = %s "
                                    "AND e.kind = 'communicate'", (run_id,)):
        data = json.loads(data) if isinstance(data, str) else data
        for listener, mode in data["delivered"].items():
            if mode == "HEARD" and listener != speaker:
                pairs[(speaker, listener)] = pairs.get((speaker, listener), 0) + 1
    return pairs


def test_the_speech_graph_of_a_day_and_an_agents_strongest_ties(staff_page, page_watch, site, talk_run):
    pairs = _heard_pairs(site, talk_run)
    [(agents,)] = site.query("SELECT COUNT(*) FROM agent_state WHERE run_id = %s", (talk_run,))
    staff_page.goto(f"/runs/{talk_run}/charts/")
    staff_page.select_option("#speech-chart select[name=day]", "1")
    staff_page.click("#speech-chart button")
    expect(staff_page).to_have_url(re.compile(r"/charts/\?day=1$"))
    graph = staff_page.locator("#speech-chart svg.speech-graph")
    expect(graph.locator("circle.node")).to_have_count(agents)
    expect(graph.locator("line.tie")).to_have_count(len(pairs))
    # the busiest pair's line names both people and its utterances
    (speaker, listener), n = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
    names = _names(site)
    assert graph.locator("line.tie title", has_text=f"{names[speaker]} → {names[listener]}: {n} utterance(s)").count() == 1

    # the speaker's inspector lists its strongest ties; the heaviest one leads to that person's page
    staff_page.goto(f"/runs/{talk_run}/agents/{speaker}/")
    both = {}
    for (s, l), k in pairs.items():
        if speaker in (s, l):
            other = l if s == speaker else s
            both[other] = both.get(other, 0) + k
    top = max(both.values())
    first = staff_page.locator("#ties tr.tie").first
    shown = int(first.locator(".heard-from").inner_text()) + int(first.locator(".heard-by").inner_text())
    assert shown == top
    other = first.get_attribute("data-agent")
    assert both[other] == top
    first.locator("a").click()
    expect(staff_page).to_have_url(re.compile(rf"/agents/{other}/$"))
    expect(staff_page.locator("#ties tr.tie", has_text=names[speaker])).to_have_count(1)
    assert page_watch.dialogs == [] and page_watch.page_errors == []
