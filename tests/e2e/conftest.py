"""Browser tests: Playwright driving Debian's chromium against pytest-django's live_server.

Playwright's own browser download cannot work offline, so the system chromium is used, and a
missing one fails the run rather than skipping it: a green run must mean the browser ran.
"""

import os
import shutil
from pathlib import Path

import pytest

# Playwright's sync API keeps an event loop running in the test thread; Django refuses ORM
# calls from a thread with a running loop unless told this is safe (it is: nothing async here).
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail(
            "The browser tests need Debian's chromium and it is not on PATH: "
            "run scripts/ensure-chromium (or apt-get install chromium).",
            pytrace=False,
        )
    return {**browser_type_launch_args, "executable_path": chromium, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1360, "height": 900}}


@pytest.fixture
def browser_problems(page):
    """Console errors, uncaught exceptions and CSP violations seen by the page; each test
    using the browser ends by asserting there were none."""
    problems = []
    page.on(
        "console",
        lambda message: (
            problems.append(f"console {message.type}: {message.text}")
            if message.type in ("error", "warning") and "DevTools" not in message.text
            else None
        ),
    )
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    # Chromium reports CSP violations as console errors, and also as this DOM event.
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', e => "
        "console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));"
    )
    yield problems
    assert problems == []


@pytest.fixture
def screenshot(page):
    """screenshot("name") writes screenshots/name.png (git-ignored) of the whole page."""
    SCREENSHOTS.mkdir(exist_ok=True)

    def take(name: str):
        page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=True)

    return take


@pytest.fixture
def log_in(page, live_server):
    """log_in(user, password) through the login form; returns the page on the overview."""

    def go(username: str, password: str):
        page.goto(f"{live_server.url}/login/")
        page.get_by_label("User name").fill(username)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_server.url}/")
        return page

    return go


AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
# What the desk must never have: axe-core's two worst levels.
AXE_FAILING_IMPACTS = {"serious", "critical"}


@pytest.fixture
def axe_page(browser, browser_context_args):
    """A page whose context lets Playwright's add_script_tag inject axe-core from the local
    file (the desk's CSP forbids inline script, rightly; the other tests keep it in force)."""
    if not AXE.exists():
        pytest.fail("axe-core is not installed: run scripts/ensure-axe.", pytrace=False)
    context = browser.new_context(**browser_context_args, bypass_csp=True)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def axe_violations():
    """axe_violations(page) -> the serious and critical violations on the page, each as
    "rule (impact): n nodes, e.g. selector"."""

    def check(page) -> list[str]:
        page.add_script_tag(path=str(AXE))
        result = page.evaluate("() => axe.run(document, { resultTypes: ['violations'] })")
        return [
            f"{v['id']} ({v['impact']}): {len(v['nodes'])} nodes, e.g. "
            f"{v['nodes'][0]['target']} {v['nodes'][0].get('failureSummary', '')[:160]}"
            for v in result["violations"]
            if v["impact"] in AXE_FAILING_IMPACTS
        ]

    return check


@pytest.fixture
def open_as(browser, browser_context_args, live_server):
    """open_as(name, password) -> a page of its own browser context (cookies, session),
    logged in as that user, on the overview: several reviewers at once. Each ends, like
    browser_problems, by asserting its page saw no console error or page error."""
    opened = []

    def open_page(name: str, password: str):
        context = browser.new_context(**browser_context_args)
        page = context.new_page()
        problems = []
        page.on(
            "console",
            lambda m: problems.append(m.text) if m.type in ("error", "warning") else None,
        )
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(f"{live_server.url}/login/")
        page.get_by_label("User name").fill(name)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_server.url}/")
        opened.append((name, context, problems))
        return page

    yield open_page
    for _, context, _ in opened:
        context.close()
    assert {name: problems for name, _, problems in opened if problems} == {}


@pytest.fixture
def two_reviewers(open_as, reviewer, make_reviewer):
    """Rita and Sam, two reviewers, each in a browser context of their own."""
    make_reviewer("sam")
    return open_as("rita", "rita-reviews-things"), open_as("sam", "samsamsam")
