"""Every page of the desk, at a desktop width and at 390 px (a phone): axe-core finds no
serious or critical violation, nothing scrolls sideways, and the top bar covers no title; a
refusal, wherever it is shown, is an alert on screen and axe-clean too."""

import pytest
from playwright.sync_api import expect

from poimen.services import review_record, reviews_bulk

pytestmark = pytest.mark.e2e

TUNER_PASSWORD = "tom-tunes-thresholds"
# The innermost element that reaches furthest right: what makes a page scroll sideways.
WIDEST = """() => {
  let worst = null, right = 0;
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect().right;
    if (r > right + 1 || (worst && worst.contains(e) && r >= right)) { worst = e; right = r; }
  }
  return worst ? `${worst.tagName.toLowerCase()}.${worst.className} reaches ${right}` : '';
}"""


def pages(desk_data, tuner):
    record = desk_data["verbatim"]
    review_record(record=desk_data["script"], verdict="confirmed", actor=tuner)
    from poimen.models import Record

    reviews_bulk(
        records=Record.objects.filter(pk=record.pk),
        verdict="confirmed",
        actor=tuner,
        filters_described="kind skill",
    )
    pasted = _pasted_across_kinds()
    return {
        "overview": "/",
        "exclusions": "/exclusions/",
        "near-misses": "/near-misses/",
        "record": f"/records/{record.pk}/?list=exclusions",
        "record-near-miss": f"/records/{desk_data['near'].pk}/?list=near_misses",
        "record-unmatched": f"/records/{desk_data['unrelated'].pk}/",
        "record-across-kinds": f"/records/{pasted.pk}/?list=exclusions",
        "artifacts": "/artifacts/",
        "artifact": f"/artifacts/{record.best_artifact_id}/",
        "artifact-part": f"/artifacts/{record.best_artifact_id}/?part=1",
        "runs": "/runs/",
        "audit": "/audit/",
        "export": "/export/?list=exclusions",
        "bulk": "/exclusions/bulk/?kind=skill",
        "bulk-choose": "/exclusions/bulk/?kind=skill&choose=1",
        "bulk-chosen": f"/exclusions/bulk/?chosen={record.pk}",
        "review": "/review/?list=near_misses",
        "exclusions-by-reason": "/exclusions/?reason=quoted",
        "saved-filters": "/filters/",
        "tuning": "/tuning/",
        "tuning-skill": "/tuning/skill/?value=0.35",
        **guidelines_pages(tuner),
        **team_pages(desk_data, tuner),
    }


def guidelines_pages(tuner):
    """The guidelines with a version in force and one replaced, and the admin's editor."""
    from poimen.services import guidelines_edit

    first = guidelines_edit(actor=tuner, text="Confirm a copy of a skill.", note="first")
    guidelines_edit(actor=tuner, text="Confirm a copy of a skill.\n\nRelease a quotation.")
    return {
        "guidelines": "/guidelines/",
        "guidelines-old": f"/guidelines/?version={first.pk}",
        "guidelines-edit": "/guidelines/edit/",
    }


def team_pages(desk_data, tuner):
    """The team's pages with something on them: a record waiting for tom's blind second
    review, a disagreement he may settle, claims in force, agreement figures."""
    from django.contrib.auth.models import User
    from django.test import override_settings

    from poimen.models import Record, SecondReview
    from poimen.services import records_claim, second_review_give

    sam = User.objects.create_user("sam", password="samsamsam")
    sam.groups.add(*tuner.groups.all())
    artifact = desk_data["verbatim"].best_artifact
    waiting, disputed = (
        Record.objects.create(
            run=desk_data["verbatim"].run, source="a11y", external_id=f"borderline-{n}",
            text=f"A borderline copy {n}.", sha256=f"{n:064d}", status="excluded", derived=True,
            best_overlap=0.81, best_artifact=artifact,
        )
        for n in range(2)
    )  # fmt: skip
    with override_settings(POIMEN_SECOND_REVIEW_SHARE=1.0):
        review_record(record=waiting, verdict="confirmed", actor=sam)
        review_record(record=disputed, verdict="confirmed", actor=tuner)
    second_review_give(
        second=SecondReview.objects.get(record=disputed), verdict="false_positive", actor=sam
    )
    records_claim(records=Record.objects.filter(review__isnull=True), actor=sam, size=1)
    return {
        "team": "/team/",
        "second-review": "/team/second/",
        "disagreements": "/team/disagreements/",
    }


def _pasted_across_kinds():
    """A record pasted from a skill and a reference page: the record view's numbers across
    kinds."""
    import json
    import tempfile
    from pathlib import Path

    from poimen.models import Record
    from poimen.services import artifact_register, records_ingest
    from tests import renderings
    from tests.texts import reference, skill

    texts = {"git-commit-message": skill("git-commit-message")}
    texts["celery-task-retries"] = reference("celery-task-retries")
    artifact_register(kind="skill", name="git-commit-message", text=texts["git-commit-message"])
    artifact_register(
        kind="reference", name="celery-task-retries", text=texts["celery-task-retries"]
    )
    text = "\n\n".join(
        renderings.word_slice(t, words=int(len(t.split()) * 0.62), seed=5) for t in texts.values()
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pasted.jsonl"
        path.write_text(json.dumps({"id": "pasted", "text": text}) + "\n", encoding="utf-8")
        records_ingest(paths=[path], source="pasted")
    record = Record.objects.get(source="pasted")
    assert record.mixed_coverage and record.status == "excluded"
    return record


def log_in(page, live_server):
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("User name").fill("tom")
    page.get_by_label("Password").fill(TUNER_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{live_server.url}/")


@pytest.mark.parametrize("width", [1360, 390])
def test_every_page_passes_axe_and_fits_the_width(
    live_server, axe_page, axe_violations, tuner, desk_data, width
):
    page = axe_page
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(f"{live_server.url}/login/")
    problems = {}
    if found := axe_violations(page):
        problems["login"] = found
    log_in(page, live_server)
    for name, path in pages(desk_data, tuner).items():
        response = page.goto(live_server.url + path)
        assert response.status == 200, path
        expect(page.locator("h1")).to_be_visible()
        found = axe_violations(page)
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        if wide > width + 1:
            culprit = page.evaluate(WIDEST)
            found.append(f"scrolls sideways: {wide} px wide at {width} ({culprit})")
        covered = page.evaluate(
            "() => document.querySelector('h1').getBoundingClientRect().top < Math.max("
            "...[...document.querySelectorAll('.topbar, .topbar *')]"
            ".filter(e => e.getClientRects().length)"
            ".map(e => e.getBoundingClientRect().bottom))"
        )
        if covered:
            found.append("the top bar covers the title")
        if found:
            problems[name] = found
            page.screenshot(path=f"screenshots/a11y-{name}-{width}.png", full_page=True)
    assert not problems, "\n".join(f"{name}: {p}" for name, ps in problems.items() for p in ps)


def record_shown(page) -> int:
    import re

    return int(re.search(r"#(\d+)", page.locator("h1").inner_text()).group(1))


@pytest.mark.parametrize("width", [1360, 390])
def test_refusals_pass_axe_where_they_are_shown(
    live_server, axe_page, axe_violations, reviewer, tuner, desk_data, width
):
    """A refusal in a list row, in review mode and in the page's slot (a 4xx, shown by
    desk.js): said as an alert, seen on screen, and axe-clean."""
    from poimen.models import Record

    page = axe_page
    page.set_viewport_size({"width": width, "height": 844})
    log_in(page, live_server)
    problems = {}

    def check(name, alert):
        expect(alert).to_be_visible()
        alert = alert.evaluate(
            "e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; }"
        )
        found = axe_violations(page)
        if alert[0] < 0 or alert[1] > width:
            found.append(f"the refusal is off screen: {alert}")
        if page.evaluate("() => document.documentElement.scrollWidth") > width + 1:
            found.append("scrolls sideways")
        if found:
            problems[name] = found

    # Rita judges the record in the first row while tom looks at it: his is refused in the row.
    page.goto(live_server.url + "/exclusions/?sort=overlap")
    first = Record.objects.get(
        pk=page.locator("#results tr[data-row]").first.get_attribute("id")[4:]
    )
    review_record(record=first, verdict="confirmed", actor=reviewer)
    page.keyboard.press("j")
    page.keyboard.press("f")
    check("row", page.locator("#results").get_by_role("alert"))
    # The same in review mode: the record again, as it now stands.
    page.goto(live_server.url + "/review/?list=exclusions&sort=overlap")
    shown = Record.objects.get(pk=record_shown(page))
    review_record(record=shown, verdict="confirmed", actor=reviewer)
    page.keyboard.press("c")
    expect(page.get_by_role("alert")).to_contain_text("rita judged it")
    check("review mode", page.locator("main").get_by_role("alert"))
    # A request no control makes (an undo of no verdict: 400) is told in the page's slot.
    unreviewed = Record.objects.filter(review=None).first()
    page.evaluate(
        "url => htmx.ajax('POST', url, {source: '#main', target: '#main'})",
        f"/records/{unreviewed.pk}/undo/",
    )
    slot = page.locator("#refusal").get_by_role("alert")
    expect(slot).to_contain_text("no review to undo")
    check("refusal slot", slot)
    page.keyboard.press("j")  # the next request (skip on) clears it
    expect(slot).to_have_count(0)
    assert not problems, "\n".join(f"{name}: {p}" for name, ps in problems.items() for p in ps)
