"""The review guidelines in a real Chromium: an admin edits them, a reviewer reads them from
the desk's navigation with the false-positive reasons' definitions (and no editor), and the
change is in the audit log."""

import pytest
from playwright.sync_api import expect

from poimen.models.reviews import REASON_DEFINITIONS

pytestmark = pytest.mark.e2e


def test_an_admin_edits_the_guidelines_and_a_reviewer_reads_them(
    live_server, open_as, reviewer, tuner
):
    admin = open_as("tom", "tom-tunes-thresholds")
    admin.get_by_role("navigation", name="Main").get_by_role("link", name="Guidelines").click()
    admin.get_by_role("link", name="Edit the guidelines").click()
    admin.get_by_label("Guidelines", exact=True).fill(
        "Confirm a skill pasted whole.\n\nRelease a sentence quoted to discuss it."
    )
    admin.get_by_label("What changed (optional)").fill("first version")
    admin.get_by_role("button", name="Save a new version").click()
    expect(admin.locator("[data-guidelines]")).to_contain_text("Confirm a skill pasted whole.")
    expect(admin.locator("[data-history] li")).to_have_count(1)

    rita = open_as("rita", "rita-reviews-things")
    rita.get_by_role("navigation", name="Main").get_by_role("link", name="Guidelines").click()
    expect(rita.locator("[data-guidelines] p").first).to_have_text("Confirm a skill pasted whole.")
    expect(rita.locator("[data-reasons] dd")).to_have_text(
        [str(definition) for definition in REASON_DEFINITIONS.values()]
    )
    expect(rita.get_by_role("link", name="Edit the guidelines")).to_have_count(0)

    admin.goto(f"{live_server.url}/audit/")
    row = admin.locator("tr", has=admin.locator("td strong", has_text="Guidelines changed"))
    expect(row).to_contain_text("guidelines version")
    expect(row).to_contain_text("first version")
