"""The record view of a record pasted from a skill and a reference page: its coverage across
kinds against the threshold in force (the highest of the kinds'), and whether that decides."""

import html as html_text
import json
import re

import pytest
from django.urls import reverse

from poimen.models import KindPolicy, Record
from tests import renderings
from tests.texts import reference, skill

pytestmark = pytest.mark.django_db


def share_of(text: str, share: float, *, seed: int) -> str:
    return renderings.word_slice(text, words=int(len(text.split()) * share), seed=seed)


@pytest.fixture
def pasted(make_artifact, tmp_path):
    from poimen.services import records_ingest

    make_artifact(kind="skill", name="git-commit-message", text=skill("git-commit-message"))
    make_artifact(kind="reference", name="celery", text=reference("celery-task-retries"))
    KindPolicy.objects.create(kind="reference", threshold=0.85)
    text = "Both, as pasted:\n\n" + "\n\n".join(
        [
            share_of(skill("git-commit-message"), 0.62, seed=1),
            share_of(reference("celery-task-retries"), 0.63, seed=2),
        ]
    )
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps({"id": "p", "text": text}) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source="pasted")
    return Record.objects.get(source="pasted")


def across_kinds(html: str) -> str:
    found = re.search(r"<dd data-across-kinds>(.*?)</dd>", html, re.S)
    return html_text.unescape(re.sub(r"<[^>]+>", "", found.group(1))) if found else ""


def test_the_record_view_shows_the_coverage_across_kinds_against_the_highest_threshold(
    client, reviewer, pasted
):
    assert pasted.status == "excluded"
    client.force_login(reviewer)

    shown = across_kinds(client.get(reverse("record", args=[pasted.pk])).content.decode())

    coverage = pasted.mixed_coverage["coverage"]
    assert f"{coverage:.2f} > 0.85" in shown  # the highest of skill's 0.8 and reference's 0.85
    assert "reference, skill" in shown and "decides" in shown


def test_a_record_of_one_kind_shows_no_coverage_across_kinds(client, reviewer, make_record):
    record = make_record(text="An ordinary note about the week.")
    client.force_login(reviewer)

    html = client.get(reverse("record", args=[record.pk])).content.decode()

    assert "data-across-kinds" not in html
