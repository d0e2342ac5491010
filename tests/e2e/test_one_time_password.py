"""In a real Chromium: a member added with add_user logs in with the one-time password, is
taken to replace it, and reaches the desk only after (issue 24); axe-core on the page."""

import pytest
from playwright.sync_api import expect

from poimen.services import user_add

pytestmark = pytest.mark.e2e


def test_the_first_login_replaces_the_one_time_password(live_server, axe_page, axe_violations):
    _, one_time = user_add(username="alice", role="reviewer")
    page = axe_page
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill("alice")
    page.get_by_label("Password").fill(one_time)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/password/")
    expect(page.locator("[data-one-time]")).to_contain_text("choose your own")
    assert axe_violations(page) == []
    page.goto(f"{live_server.url}/exclusions/")
    page.wait_for_url(f"{live_server.url}/password/")

    page.get_by_label("Current password").fill(one_time)
    page.get_by_label("New password", exact=True).fill("alice-chose-this-1")
    page.get_by_label("New password again").fill("alice-chose-this-1")
    page.get_by_role("button", name="Change password").click()
    page.wait_for_url(f"{live_server.url}/password/changed/")
    page.goto(f"{live_server.url}/exclusions/")
    expect(page.locator("h1")).to_contain_text("Exclusions")
