"""Fixtures every page's browser tests share (Playwright driving Debian's /usr/bin/chromium).

Everything is real and made once per session: a migrated SQLite file database (voyage.bench.fleet's
ScratchDB; the 1912 scenario comes with the migrations, and nothing here flushes tables), runs
made by `manage.py run_voyage` in it, and daphne serving voyage.asgi (pages, static files and
websockets) as a subprocess on a free 127.0.0.1 port. Tests check pages against the database by
reading it directly (`site.db.query(sql, params)`, placeholders written %s).

Session fixtures
- `site`: the running site. `site.url` ("http://127.0.0.1:PORT"), `site.db` (ScratchDB),
  `site.env` (the environment of its processes, for `voyage.bench.fleet.manage(site.env, ...)`),
  `site.staff` / `site.visitor` ((user name, password): a staff user made by `manage.py
  ensure_staff`, and a logged-in user who is NOT staff), `site.log` (daphne's log file).
- `small_run`: the id of a finished 30-tick offline run of the 1912 scenario (seed 1912).
- `hostile_run`: the id of a finished 6-tick run whose model (`hostile_server`:
  tests/browser/hostile_openai.py, a real HTTP server on 127.0.0.1) answers every call with dialogue, monologue and prose carrying `<script>`,
  `<img src=x onerror=...>` and `javascript:` payloads (hostile_openai.PAYLOADS; they would set
  document.title to hostile_openai.TITLE_PAYLOAD if they ever ran). `hostile_ticks(site, server,
  N, run_id)` continues it to N ticks, e.g. while a page is open.
- `troubled_run`: the id of a finished 3-tick run through voyage/bench/fake_openai_server.py whose calls
  went wrong: one model error (no answer after every retry), ACTION_FAILs and a retried call.
- `worker`: a `manage.py qcluster` (voyage.bench.fleet.Worker) against the site's database, started on
  first use and killed at the end of the session.
- `staff_state`: the path of a storage-state file holding a logged-in staff session (logged in
  once through the login page).
- `base_url`, `browser_type_launch_args`: point pytest-playwright's `page` at the site and at
  /usr/bin/chromium (headless, no sandbox, no GPU, no background networking).

Function fixtures
- `advancing_run`: the id of a run queued on the worker (1912, 2000 ticks) and advancing now; it is
  stopped (voyage.runs.control) when the test ends.
- `staff_page`: a page in a new browser context already logged in as staff.
- `page_watch`: what happened on `staff_page`: `.dialogs`, `.console_errors`, `.page_errors`.

Every test under tests/browser is marked `browser` and runs after all other tests of a session (once
Playwright has started, its event loop holds the main thread): `pytest tests/browser` runs them
alone and `pytest -m "not browser"` leaves them out.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from voyage.bench.fleet import ScratchDB, WebServer, Worker, manage, manage_json, wait_for

STAFF = ("staff-tester", "staff-pass-1912")
VISITOR = ("visitor", "visitor-pass-1912")


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives a real browser against daphne (tests/browser)")


@pytest.hookimpl(trylast=True)  # after pytest-django's own reordering
def pytest_collection_modifyitems(config, items):
    """Mark the browser tests, and run them last: from the first one on, Playwright's sync API keeps
    an event loop running in the main thread, where no other test could then start one
    (asyncio.run, async_to_sync)."""
    here = Path(__file__).parent
    browser = [item for item in items if here in Path(str(item.fspath)).parents]
    for item in browser:
        item.add_marker(pytest.mark.browser)
    ids = {id(item) for item in browser}
    items[:] = [item for item in items if id(item) not in ids] + browser


@pytest.fixture(autouse=True)
def _server_logs_from_here(request):
    """Where the site's logs (daphne's, the worker's) stood when this test began, so a failing test's
    report shows what the servers said meanwhile (pytest_runtest_makereport, below): a page's 500
    has its traceback only there, and the logs go with the scratch folder when the session ends."""
    if "site" in request.fixturenames:
        site = request.getfixturevalue("site")
        request.node.server_logs = {path: path.stat().st_size if path.exists() else 0
                                    for path in (site.log, site.db.dir / "worker.log")}
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if report.failed:
        for path, start in getattr(item, "server_logs", {}).items():
            if path.exists() and path.stat().st_size > start:
                with open(path, "rb") as log:
                    log.seek(start)
                    said = log.read().decode(errors="replace")
                report.sections.append((f"{path.name} during this test (last 8,000 characters)", said[-8000:]))


@dataclass
class Site:
    db: ScratchDB
    env: dict
    url: str
    log: Path
    staff: tuple[str, str] = STAFF
    visitor: tuple[str, str] = VISITOR
    runs: dict = field(default_factory=dict)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1)

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self.db.query(sql, params)


@pytest.fixture(scope="session")
def site():
    with ScratchDB("sqlite") as db:
        env = db.env(VOYAGE_STAFF_USER=STAFF[0], VOYAGE_STAFF_PASSWORD=STAFF[1], VOYAGE_FEED_POLL_MS=100)
        manage(env, "ensure_staff")
        manage(env, "shell", "-c", "from django.contrib.auth.models import User; "
                                   f"User.objects.create_user({VISITOR[0]!r}, password={VISITOR[1]!r})")
        web = WebServer(env, db.dir / "daphne.log")
        try:
            yield Site(db=db, env=env, url=web.url, log=web.log_path)
        finally:
            web.stop()


def run_voyage(site: Site, *args: str) -> int:
    return manage_json(site.env, "run_voyage", *args)[-1]["run_id"]


@pytest.fixture(scope="session")
def small_run(site) -> int:
    return run_voyage(site, "--ticks", "30", "--seed", "1912")


@pytest.fixture(scope="session")
def hostile_server():
    from tests.browser.hostile_openai import HostileOpenAI

    with HostileOpenAI() as server:
        yield server


def hostile_ticks(site: Site, server, ticks: int, run_id: int | None = None) -> int:
    """Run (or continue) a run to `ticks` ticks with every answer from the hostile server."""
    more = ["--run", str(run_id)] if run_id else ["--schedule", "simultaneous"]
    return run_voyage(site, *more, "--ticks", str(ticks), "--base-url", server.base_url, "--concurrency", "8")


@pytest.fixture(scope="session")
def hostile_run(site, hostile_server) -> int:
    return hostile_ticks(site, hostile_server, 6)


@pytest.fixture(scope="session")
def troubled_run(site) -> int:
    """3 ticks through the fake OpenAI-compatible server: its first call fails on every attempt (a
    model error and an ACTION_FAIL), the next answers prose (an ACTION_FAIL), the next is rate
    limited once (a retry)."""
    from voyage.bench.fake_openai_server import FakeOpenAI

    with FakeOpenAI() as server:
        server.force("server_error", "server_error", "server_error", "server_error", "not_json", "rate_limit")
        return run_voyage(site, "--ticks", "3", "--base-url", server.base_url)


@pytest.fixture(scope="session")
def worker(site):
    proc = Worker(site.env, site.db.dir / "worker.log")
    yield proc
    proc.kill()


@pytest.fixture
def memory_worker(site):
    """The memory cluster (`make worker` starts it beside the tick cluster), for one test: a study's
    arms wait for their base's memory jobs before the fork tick. Not for the session: a test may need
    a run that finished with its memory jobs still owed."""
    proc = Worker(site.env, site.db.dir / "worker-memory.log", cluster="memory")
    yield proc
    proc.kill()


@pytest.fixture
def advancing_run(site, worker):
    run_id = manage_json(site.env, "start_voyage", "--ticks", "2000", "--seed", "7")[-1]["run_id"]
    wait_for(lambda: site.db.run_row(run_id)[0] > 0, timeout=60, what=f"the worker to advance run {run_id}")
    yield run_id
    manage(site.env, "voyage_control", "stop", str(run_id))


@pytest.fixture(scope="session")
def base_url(site) -> str:
    return site.url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": "/usr/bin/chromium", "headless": True,
            "args": ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-component-update"]}


def log_in(page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")


@pytest.fixture(scope="session")
def staff_state(browser, browser_context_args, site, tmp_path_factory) -> str:
    context = browser.new_context(**browser_context_args)
    page = context.new_page()
    log_in(page, *site.staff)
    page.wait_for_url(site.url + "/")
    path = str(tmp_path_factory.mktemp("browser") / "staff.json")
    context.storage_state(path=path)
    context.close()
    return path


@pytest.fixture
def staff_page(new_context, staff_state):
    return new_context(storage_state=staff_state).new_page()


@dataclass
class PageWatch:
    dialogs: list = field(default_factory=list)
    console_errors: list = field(default_factory=list)
    page_errors: list = field(default_factory=list)


@pytest.fixture
def page_watch(staff_page) -> PageWatch:
    watch = PageWatch()

    def on_dialog(dialog):
        watch.dialogs.append(dialog.message)
        dialog.dismiss()

    staff_page.on("dialog", on_dialog)
    staff_page.on("console", lambda msg: msg.type == "error" and watch.console_errors.append(msg.text))
    staff_page.on("pageerror", lambda exc: watch.page_errors.append(str(exc)))
    return watch


