"""When the server fails or cannot be reached, the desk says so (an alert in the page's refusal
slot, role="alert") and shows nothing as done that was not: the record stays on screen as it
was, "n of N reviewed" does not move, the row judged is selected again and `u` finds no "last
verdict" in it, and a filter set that failed to load can be asked again."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from poimen import services
from poimen.models import Event, Review

pytestmark = pytest.mark.e2e

REVIEWER_PASSWORD = "rita-reviews-things"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"
ALERT = "#refusal [role='alert'][data-refusal]"
# What a failed request makes the browser and htmx print: expected here, and nothing else.
EXPECTED_NOISE = re.compile(
    r"Failed to load resource|ERR_CONNECTION_REFUSED|Response Status Error Code|htmx:sendError"
    r"|htmx:responseError|htmx:afterRequest"
)


@pytest.fixture
def failing_page(page):
    """The page, whose console may print only a failed request's noise: no CSP violation, no
    script error (the alert is shown without inline script or style)."""
    problems = []
    page.on(
        "console",
        lambda m: (
            problems.append(m.text)
            if m.type in ("error", "warning") and not EXPECTED_NOISE.search(m.text)
            else None
        ),
    )
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', e => "
        "console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));"
    )
    yield page
    assert problems == [], problems


@pytest.fixture
def copies(desk_data, make_record):
    artifact = desk_data["verbatim"].best_artifact
    for number in range(2):
        make_record(
            text=f"Copy {number} of the release notes skill.",
            status="excluded",
            derived=True,
            best_overlap=0.82 + number / 100,
            best_artifact=artifact,
        )
    return desk_data


def in_view(page, selector: str) -> bool:
    return page.locator(selector).evaluate(
        "e => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.left >= 0 && "
        "r.bottom <= innerHeight && r.right <= innerWidth && r.width > 0; }"
    )


@pytest.mark.parametrize("width", [1360, 390])
def test_a_server_error_on_a_verdict_in_review_mode_is_told_and_nothing_moves_on(
    live_server, failing_page, log_in, reviewer, copies, monkeypatch, width
):
    page = failing_page
    page.set_viewport_size({"width": width, "height": 800})
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(live_server.url + "/review/?list=exclusions&sort=closeness")
    progress = page.locator("[data-progress]")
    expect(progress).to_contain_text("0 of 4 reviewed, 4 left")
    shown = page.locator("h1").inner_text()

    def broken(**kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(services, "review_record", broken)  # a real 500 from the server
    page.keyboard.press("c")
    alert = page.locator(ALERT)
    expect(alert).to_contain_text("Not recorded: the server failed on it (error 500)")
    assert in_view(page, ALERT)
    # The viewport as the reviewer sees it (caret "initial": Playwright hiding the caret sets
    # an inline style, which the CSP rightly blocks and this page reports).
    page.screenshot(path=SCREENSHOTS / f"htmx-server-error-{width}.png", caret="initial")
    expect(progress).to_contain_text("0 of 4 reviewed, 4 left")
    assert page.locator("h1").inner_text() == shown
    assert not Review.objects.exists()

    # The server back: the same key gives the verdict, the alert goes, review mode moves on.
    monkeypatch.undo()
    page.keyboard.press("c")
    expect(progress).to_contain_text("1 of 4 reviewed, 3 left")
    expect(page.locator(ALERT)).to_have_count(0)
    assert Review.objects.count() == 1


def test_a_server_out_of_reach_is_told_on_a_list_row_and_u_undoes_nothing(
    live_server, failing_page, log_in, reviewer, copies
):
    page = failing_page
    # As if the server had stopped: while `down`, every verdict post is refused a connection.
    # The route is in place before the page loads: one added to a loaded page once let the
    # very next post through to the server (CI, 2026-12-07), so the switch is ours instead.
    down = False

    def verdict_post(route):
        if down:
            route.abort("connectionrefused")
        else:
            route.continue_()

    page.route(re.compile(r"/rows/\w+/\d+/(review|undo)/$"), verdict_post)
    log_in("rita", REVIEWER_PASSWORD)
    first = services.review_record(
        record=copies["script"], verdict="confirmed", actor=reviewer
    )  # an earlier verdict of rita's, which a stray u must not take back
    page.goto(live_server.url + "/exclusions/?sort=closeness")
    page.keyboard.press("j")
    judged = page.locator("[data-row].is-current")
    row_id = judged.get_attribute("id")
    down = True
    page.keyboard.press("c")
    expect(page.locator(ALERT)).to_contain_text(
        "Not confirmed: the server could not be reached, so this may not have been recorded"
    )
    # The row judged is still the selected one, and still shows what holds: no verdict.
    expect(page.locator("[data-row].is-current")).to_have_id(row_id)
    expect(page.locator(f"#{row_id}")).to_contain_text("not reviewed")
    assert Review.objects.filter(withdrawn_at=None).count() == 1  # rita's earlier one alone
    down = False
    page.keyboard.press("u")  # nothing of this row's to undo, and no "last judged" row
    page.wait_for_timeout(300)
    assert not Event.objects.filter(type="review_undone").exists()
    first.refresh_from_db()
    assert first.withdrawn_at is None
    page.keyboard.press("c")  # the server reached again: the verdict lands, in the row
    expect(page.locator(f"#{row_id}")).not_to_contain_text("not reviewed")
    expect(page.locator(ALERT)).to_have_count(0)


def test_a_filter_that_failed_to_load_is_told_and_can_be_asked_again(
    live_server, failing_page, log_in, reviewer, copies
):
    page = failing_page
    log_in("rita", REVIEWER_PASSWORD)
    page.goto(live_server.url + "/exclusions/")
    results = page.locator("#results")
    expect(results).to_contain_text("4 records")
    # A proxy in front of the desk answers its own error page for the list.
    page.route(
        re.compile(r"/exclusions/\?.*overlap_min"),
        lambda r: r.fulfill(status=502, body="<h1>Bad gateway</h1>"),
    )
    page.get_by_label("Overlap from").fill("0.83")
    page.get_by_label("Overlap from").press("Enter")
    expect(page.locator(ALERT)).to_contain_text("Not loaded: the server failed on it (error 502)")
    expect(results).to_contain_text("4 records")  # what it showed before, said to be so
    page.unroute(re.compile(r"/exclusions/\?.*overlap_min"))
    # The same filters asked again are sent (not taken for the ones already shown).
    page.get_by_label("Overlap from").press("Enter")
    expect(results).not_to_contain_text("4 records")
    expect(page.locator(ALERT)).to_have_count(0)
