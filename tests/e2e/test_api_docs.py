"""The API's docs page in a real Chromium: Swagger UI runs from poimen's own static files
under the desk's Content-Security-Policy, with no console error or CSP violation."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_api_docs_page_renders_every_endpoint_cleanly(
    page, live_server, browser_problems, screenshot
):
    page.goto(f"{live_server.url}/api/v1/docs")
    expect(page.locator(".opblock-summary-path", has_text="/api/v1/check")).to_be_visible()
    expect(page.get_by_text("Authorization: Bearer <token>")).to_be_visible()
    page.locator(".opblock-summary-path", has_text="/api/v1/check").click()
    expect(page.get_by_text("Example Value").first).to_be_visible()
    screenshot("api-docs")
