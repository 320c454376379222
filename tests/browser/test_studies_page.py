"""The studies pages in a real browser: a staff user follows a study live while the worker advances
it, then compares its cells."""
import json
import re

from playwright.sync_api import expect

from voyage.bench.fleet import manage, wait_for


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


def test_a_study_over_an_intervention_runs_on_the_worker_and_compares_its_arms(site, worker, memory_worker, staff_page,
                                                                             page_watch):
    lamp = ('lamp={"kind": "object_place", "tick": 20, "name": "Brass lamp", "room": "east_corridor", '
            '"text": "<b>It hums.</b>"}')
    made = json.loads(manage(site.env, "study", "create", "--name", "lamp study", "--scenario", "edelweiss",
                             "--ticks", "40", "--vary", "intervention=none,lamp", "--intervention", lamp,
                             "--instrument", "ipip-neo-120@30", "--instrument", "ipip-neo-120@40",
                             "--instrument", "gss-trust@40"))
    assert made["runs"] == 3 and len(made["started"]) == 1  # the base first; its arms wait for it
    page = staff_page
    page.goto("/studies/")
    page.get_by_role("link", name="lamp study").click()
    expect(page.locator("#study-state")).to_have_text("finished", timeout=180_000)
    page.reload()
    expect(page.locator("#fork-tick")).to_have_text("20")
    expect(page.locator("#arms")).to_contain_text("intervention=lamp: object_place at tick 20 in east_corridor "
                                                  "(Brass lamp): <b>It hums.</b>")  # escaped: reads as typed
    assert page.locator("#arms q b").count() == 0
    rows = page.locator("#study-runs tbody tr")
    expect(rows.locator(".cell")).to_have_text(["base", "intervention=none", "intervention=lamp"])
    expect(rows.locator(".ticks")).to_have_text(["20/20", "40/40", "40/40"])
    expect(page.locator("#measures thead th.cell")).to_have_text(["intervention=none", "intervention=lamp"])
    assert page.locator("#measures td[title='n=1']").count() > 10  # both arms measured, side by side

    base, none, with_lamp = (r[0] for r in site.query(
        "SELECT m.run_id FROM studies_studyrun m JOIN studies_study s ON m.study_id = s.id "
        "WHERE s.name = 'lamp study' ORDER BY m.position"))

    def events(run_id, where):
        return site.query("SELECT e.seq, e.tick, e.kind, a.persona_id, e.room_id, e.text, e.data FROM event_log e "
                          f"LEFT JOIN agent_state a ON e.actor_id = a.id WHERE e.run_id = %s AND {where} "
                          "ORDER BY e.seq", (run_id,))

    assert events(base, "e.tick < 20") == events(none, "e.tick < 20") == events(with_lamp, "e.tick < 20") != []
    assert [e[1:] for e in events(none, "e.tick >= 20")] != [e[1:] for e in events(with_lamp, "e.tick >= 20")]
    page.get_by_role("link", name=f"run {with_lamp}").click()
    expect(page).to_have_url(re.compile(rf"/runs/{with_lamp}/$"))

    # the report's validity section: each arm's figures beside people's, with their source
    [(study_id,)] = site.query("SELECT id FROM studies_study WHERE name = 'lamp study'")
    page.goto(f"/studies/{study_id}/report/")
    articles = page.locator("#report-validity article.validity-instrument")
    for _ in range(60):  # the worker asks the instruments of the finished runs on its next pass
        if articles.count() == 3 and "(not asked yet)" not in page.locator("#report-validity").inner_text():
            break
        page.wait_for_timeout(1000)
        page.reload()
    expect(articles).to_have_count(3)
    ipip = page.locator("#report-validity article[data-instrument=ipip-neo-120][data-tick='40']")
    expect(ipip.locator("h3")).to_have_text("IPIP-NEO-120 at tick 40 (retest against tick 30)")
    expect(ipip.locator(".validity-arm")).to_have_count(2)
    domains = ipip.locator(".validity-arm[data-arm='intervention=lamp'] table.validity-domains tbody tr")
    expect(domains.locator("th")).to_have_text(["N (neuroticism)", "E (extraversion)", "O (openness)",
                                                "A (agreeableness)", "C (conscientiousness)"])
    [(agents,)] = site.query("SELECT agents FROM surveys WHERE instrument = 'ipip-neo-120' AND tick = 40 AND page = 1 "
                             "AND run_id = %s", (with_lamp,))
    expect(domains.first.locator("td.alpha")).to_contain_text(f"n={agents}")
    expect(domains.first.locator("td.retest")).to_contain_text(f"n={agents}")
    expect(domains.first.locator("td.people").first).to_have_text("not available")
    expect(ipip.locator(".people-source")).to_contain_text("mean α of the five domains 0.84")
    expect(ipip.locator(".people-source")).to_contain_text("Johnson (2014)")
    # each arm's persona table: judge-rated persona against measured domain, convergent on the diagonal
    mtmm = ipip.locator(".validity-arm[data-arm='intervention=lamp'] table.mtmm")
    expect(mtmm.locator("tbody tr th")).to_have_text([f"{d} rated" for d in "NEOAC"])
    expect(mtmm.locator("td.convergent")).to_have_count(5)
    expect(mtmm.locator("caption .discriminant")).to_contain_text("[")
    trust = page.locator("#report-validity article[data-instrument=gss-trust] .validity-arm[data-arm='intervention=none'] "
                         "tr[data-item=trust]")
    expect(trust.locator("td.people-shares")).to_contain_text("most people can be trusted: ")
    expect(trust.locator("td.tv")).to_contain_text("[")
    expect(trust.locator("td.source")).to_contain_text("General Social Survey")
    assert not page_watch.page_errors and not page_watch.dialogs


def test_a_study_over_an_intervention_made_in_the_admin_runs_to_its_report(site, worker, memory_worker, staff_page,
                                                                          page_watch, tmp_path):
    """Through the admin's form to the worker, the comparison page's "Report" link, and its download."""
    page = staff_page
    page.goto("/admin/studies/study/add/")
    page.fill("#id_name", "report <i>study</i>")
    page.select_option("#id_scenario", "edelweiss")
    page.fill("#id_ticks", "24")
    page.fill("#id_axes", "intervention=none,lamp\nseeds=2")
    page.fill("#id_interventions", 'lamp={"kind": "object_place", "tick": 8, "name": "Brass lamp", '
                                   '"room": "east_corridor", "text": "<b>It hums.</b>"}')
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    page.goto("/studies/")
    page.get_by_role("link", name="report <i>study</i>").click()
    expect(page.locator("#study-state")).to_have_text("finished", timeout=240_000)
    expect(page.locator("#study-runs tbody tr")).to_have_count(6)  # two bases, four arms

    page.get_by_role("link", name="Report", exact=True).click()
    expect(page).to_have_url(re.compile(r"/studies/\d+/report/$"))
    expect(page.locator("h1")).to_have_text("report <i>study</i>: report")
    expect(page.locator("#design tr.intervention")).to_contain_text("object_place at tick 8 in east_corridor "
                                                                   "(Brass lamp): <b>It hums.</b>")
    expect(page.locator("#report-measures thead th.arm")).to_have_text(["intervention=none", "intervention=lamp"])
    expect(page.locator("#report-measures thead th.against")).to_have_text(["intervention=lamp − baseline"])
    measures = page.locator("#report-measures tr.measure")
    assert measures.count() > 30
    calls = page.locator("#report-measures tr[data-measure=calls]")
    expect(calls.locator("td.arm-stat .n")).to_have_text(["n=2", "n=2"])
    expect(calls.locator("td.against")).to_contain_text("p=")
    expect(page.locator("#report-measures tr.network")).to_have_count(14)
    graphs = page.locator("#report-networks figure.arm-graph")
    expect(graphs).to_have_count(2)
    [(agents,)] = site.query("SELECT COUNT(*) FROM world_persona p JOIN world_scenario s ON s.id = p.scenario_id "
                             "WHERE s.slug = 'edelweiss'")
    expect(graphs.first.locator("circle.node")).to_have_count(agents)

    with page.expect_download() as download:
        page.locator("#download-report").click()
    path = tmp_path / "report.html"
    download.value.save_as(path)
    html = path.read_text()
    assert "<script" not in html and "<link" not in html and "href=" not in html and "src=" not in html
    assert html.count('<tr class="measure') == measures.count()
    assert "&lt;b&gt;It hums.&lt;/b&gt;" in html
    assert not page_watch.page_errors and not page_watch.dialogs
