"""Every kind of page opens clean for staff: nothing in the browser's console at level error, no
uncaught exception, no request that failed or answered 4xx/5xx, no request to anywhere but the site
itself, and an icon that loads. Headless chromium asks for no icon, where a desktop browser asks for
the page's `<link rel=icon>` or else /favicon.ico (and logs a 404 when it is missing): the test
fetches what a desktop browser would."""
from __future__ import annotations

from urllib.parse import urlparse

import pytest

from voyage.bench.fleet import manage_json


@pytest.fixture(scope="module")
def a_study(site) -> int:
    made = manage_json(site.env, "study", "create", "--name", "console-check", "--scenario", "1912",
                       "--ticks", "3", "--vary", "seeds=2", "--no-start")
    return made[-1]["study"]


def page_kinds(site, run_id: int, study_id: int) -> dict[str, str]:
    room, = site.query("SELECT r.key FROM world_room r JOIN agent_state a ON a.location_id = r.id "
                       "WHERE a.run_id = %s ORDER BY r.key LIMIT 1", (run_id,))[0]
    agent, = site.query("SELECT p.key FROM world_persona p JOIN agent_state a ON a.persona_id = p.id "
                        "WHERE a.run_id = %s ORDER BY p.key LIMIT 1", (run_id,))[0]
    return {"runs": "/", "overview": f"/runs/{run_id}/", "room": f"/runs/{run_id}/rooms/{room}/",
            "agent inspector": f"/runs/{run_id}/agents/{agent}/", "pictures": f"/runs/{run_id}/charts/",
            "studies": "/studies/", "study": f"/studies/{study_id}/", "admin index": "/admin/",
            "api docs": "/api/docs"}


def test_every_page_kind_opens_with_a_clean_console(staff_page, site, small_run, a_study):
    page = staff_page
    problems: list[str] = []
    requested: set[str] = set()
    page.on("console", lambda msg: msg.type == "error" and problems.append(f"console: {msg.text}"))
    page.on("pageerror", lambda exc: problems.append(f"uncaught: {exc}"))
    page.on("requestfailed", lambda req: problems.append(f"failed: {req.url} ({req.failure})"))
    page.on("request", lambda req: requested.add(req.url))
    page.on("response", lambda resp: resp.status >= 400 and problems.append(f"{resp.status}: {resp.url}"))
    site_host = urlparse(site.url).netloc
    for kind, path in page_kinds(site, small_run, a_study).items():
        problems.clear()
        response = page.goto(path)
        assert response.ok, f"{kind} ({path}) answered {response.status}"
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)  # what the page asks for after its load (live polling) counts too
        assert problems == [], f"{kind} ({path}): {problems}"
        icon = page.evaluate("(document.querySelector(\"link[rel~='icon']\") || {}).href"
                             " || new URL('/favicon.ico', location.href).href")
        answer = page.request.get(icon)
        assert answer.ok and answer.headers["content-type"].startswith("image/"), \
            f"{kind} ({path}): its icon {icon} answered {answer.status}"
    elsewhere = sorted(u for u in requested if urlparse(u).scheme in ("http", "https")
                       and urlparse(u).netloc != site_host)
    assert elsewhere == [], f"pages asked another site for {elsewhere}"


def test_the_favicon_is_served_from_the_site(page, site):
    """Browsers ask /favicon.ico on every page, the admin's and the API docs' too."""
    response = page.goto(site.url + "/favicon.ico")
    assert response.ok and response.url.endswith(".svg") and "svg" in response.headers["content-type"]
