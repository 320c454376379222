"""Validity in a real browser (issue 40): staff open a run, go to its validity page, ask the IPIP-NEO-120
of its agents, and read the validity section: each domain's alpha beside people's, labelled scripted,
the same figures the database kept."""
from __future__ import annotations

import json

from django.template.defaultfilters import floatformat
from playwright.sync_api import expect


def test_staff_ask_the_ipip_from_the_run_page_and_read_the_validity_section(staff_page, site, small_run):
    staff_page.goto(f"/runs/{small_run}/")
    staff_page.get_by_role("link", name="Validity").click()
    form = staff_page.locator("form.validity")
    form.locator("select[name=instrument]").select_option("ipip-neo-120")
    form.locator("input[name=tick]").fill("20")
    form.locator("input[name=page_size]").fill("40")
    form.locator("button[type=submit]").click()
    section = staff_page.locator("#validity")
    expect(section.locator("h2")).to_contain_text("IPIP-NEO-120 at tick 20")
    expect(section.locator(".scripted")).to_contain_text("not a language model")
    [(report,)] = site.query("SELECT report FROM validity_reports WHERE run_id = %s ORDER BY id DESC LIMIT 1",
                             (small_run,))
    report = json.loads(report) if isinstance(report, str) else report
    for letter in "NEOAC":
        row = section.locator(f"tr[data-domain={letter}]")
        alpha = report["domains"][letter]["alpha"]
        expect(row).to_contain_text(floatformat(alpha["value"], 3))  # as the page rounds (half up)
        expect(row.locator(".people")).to_contain_text("0.84")
    expect(section.locator("table.mtmm")).to_be_visible()
    assert staff_page.locator("main script").count() == 0
