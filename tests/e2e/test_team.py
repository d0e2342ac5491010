"""The desk for a team in a real Chromium: two reviewers (two browser contexts) claim
disjoint batches; a borderline record reaches a second reviewer blind; the disagreement
appears in its queue and is settled."""

import re

import pytest
from playwright.sync_api import expect

from poimen.models import Claim, Record, SecondReview

pytestmark = pytest.mark.e2e


def record_shown(page) -> int:
    return int(re.search(r"#(\d+)", page.locator("h1").inner_text()).group(1))


def test_two_reviewers_claim_disjoint_batches(live_server, two_reviewers, settings, borderline):
    settings.POIMEN_CLAIM_BATCH_SIZE = 2
    borderline(5)
    rita, sam = two_reviewers
    seen = {}
    for name, page in (("rita", rita), ("sam", sam)):
        page.goto(live_server.url + "/exclusions/?sort=closeness")
        page.locator("[data-action='claim']").click()
        expect(page).to_have_url(
            re.compile(r"/review/\?list=exclusions&sort=closeness&claimed=mine")
        )
        expect(page.locator("[data-progress]")).to_contain_text("0 of 2 reviewed, 2 left")
        expect(page.locator(".messages")).to_contain_text("2 records claimed for you until")
        seen[name] = {record_shown(page)}
        page.keyboard.press("c")  # judged, on to the second of the batch
        expect(page.locator("[data-progress]")).to_contain_text("1 of 2 reviewed, 1 left")
        seen[name].add(record_shown(page))
    held = {
        name: set(Claim.objects.filter(reviewer__username=name).values_list("record_id", flat=True))
        for name in seen
    }
    assert held["rita"] == seen["rita"] and held["sam"] == seen["sam"]
    assert len(held["rita"]) == len(held["sam"]) == 2 and not held["rita"] & held["sam"]
    # Each list says who holds what.
    rita.goto(live_server.url + "/exclusions/?sort=closeness")
    for record_id in held["sam"]:
        expect(rita.locator(f"#row-{record_id} [data-claimed]")).to_have_text("claimed by sam")
    # Rita's batch: one left; she judges it and is offered the next batch.
    rita.locator("[data-action='my-batch']").click()
    expect(rita.locator("[data-progress]")).to_contain_text("1 of 2 reviewed, 1 left")
    rita.keyboard.press("c")
    expect(rita.locator("h1")).to_have_text("Nothing left to review here")
    expect(rita.locator("main")).to_contain_text("Your batch is done")
    rita.locator("[data-action='claim']").click()
    expect(rita.locator("[data-progress]")).to_contain_text("0 of 2 reviewed, 2 left")
    assert record_shown(rita) not in held["rita"] | held["sam"]
    # The batch judged is let go; the new one is what she holds.
    assert not Claim.objects.filter(reviewer__username="rita", record_id__in=held["rita"]).exists()


def test_a_borderline_record_reaches_a_second_reviewer_blind_and_the_disagreement_is_settled(
    live_server, two_reviewers, settings, borderline, tuner, open_as
):
    settings.POIMEN_SECOND_REVIEW_SHARE = 1.0
    (record,) = borderline(1)
    rita, sam = two_reviewers
    # Rita confirms it in review mode, with a note.
    rita.goto(live_server.url + "/review/?list=exclusions&overlap_max=0.85")
    assert record_shown(rita) == record.pk
    rita.get_by_text("Add a note").click()
    rita.get_by_label("Note (optional)").fill("rita thinks it is a copy")
    rita.get_by_role("button", name=re.compile("Confirm exclusion")).click()
    expect(rita.locator("h1")).to_have_text("Nothing left to review here")
    assert SecondReview.objects.filter(record=record).exists()

    # Rita is not asked for the second verdict; Sam is, and sees none of hers.
    rita.goto(live_server.url + "/team/")
    expect(rita.locator("[data-count='waiting']")).to_have_text("0")
    sam.goto(live_server.url + "/team/")
    expect(sam.locator("[data-count='waiting']")).to_have_text("1")
    sam.get_by_role("link", name="Start second reviews").click()
    expect(sam.locator("h1")).to_have_text(f"Second review · record #{record.pk}")
    main = sam.locator("main").inner_text()
    assert "rita" not in main and "confirmed" not in main.lower()
    assert "Verdict in force" not in main
    expect(sam.locator("[data-pane='record']")).to_contain_text("A borderline copy 0")
    sam.keyboard.press("f")  # not a copy, by its key
    expect(sam.locator("h1")).to_have_text("No second reviews waiting for you")
    # Now that his is given, he is told the first and that they disagree.
    expect(sam.locator(".messages")).to_contain_text("so you disagree")
    second = SecondReview.objects.get(record=record)
    assert second.verdict == "false_positive" and second.reviewer.username == "sam"
    assert Record.objects.get(pk=record.pk).status == "excluded"  # the first holds meanwhile

    # Tom, a third, finds the disagreement and settles it with Sam's verdict.
    tom = open_as("tom", "tom-tunes-thresholds")
    tom.goto(live_server.url + "/")
    tom.get_by_role("link", name="Team").click()
    expect(tom.locator("[data-count='disagreements']")).to_have_text("1")
    tom.get_by_role("link", name="Disagreements and agreement").click()
    row = tom.locator(f"[data-disagreement='{record.pk}']")
    expect(row).to_contain_text("rita")
    expect(row).to_contain_text("sam")
    row.get_by_label("Note (optional)").fill("it quotes the skill to discuss it")
    row.get_by_role("button", name=re.compile(r"false positive.*\(second\)")).click()
    expect(tom.locator(".messages")).to_contain_text(
        f"Record #{record.pk}: settled as false positive"
    )
    expect(tom.locator("main")).to_contain_text("No disagreements to settle.")
    expect(tom.locator("main")).to_contain_text("settled as false positive")
    expect(tom.locator("table.agreement").first).to_contain_text("rita & sam")
    settled = Record.objects.select_related("review").get(pk=record.pk)
    assert settled.status == "evidence" and settled.review.reviewer.username == "tom"
