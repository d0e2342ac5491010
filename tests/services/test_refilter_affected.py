"""A registration's refilter (services/refilter_affected.py): the records that could match the
new artifact are checked again, by the refilter's own page, and only they."""

import json

import pytest

from poimen.models import Artifact, Event, Match, Record
from poimen.services import records_ingest, records_refilter
from poimen.services.refilter_affected import records_refilter_affected
from tests.texts import skill, turn

pytestmark = pytest.mark.django_db

OLD, NEW = "git-commit-message", "flaky-test-triage"
RECORDS = {
    "copy-of-new": skill(NEW),
    "new-in-a-turn": turn("unrelated-asyncio") + "\n\n" + skill(NEW),
    "copy-of-old": skill(OLD),
    "unrelated": turn("unrelated-asyncio"),
    "a-sentence-of-new": " ".join(skill(NEW).split()[:12]),
}


def _statuses() -> dict:
    return dict(Record.objects.values_list("external_id", "status"))


def test_only_the_records_that_could_match_are_checked_and_they_end_as_a_full_refilter_leaves_them(
    make_artifact, tmp_path
):
    make_artifact(name=OLD, text=skill(OLD))
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"id": k, "text": t}) + "\n" for k, t in RECORDS.items()))
    records_ingest(paths=[path])
    assert _statuses()["copy-of-new"] == "evidence"

    new = make_artifact(name=NEW, text=skill(NEW))
    result = records_refilter_affected(artifacts=Artifact.objects.filter(pk=new.pk))
    assert result.checked == 2  # the two holding the new skill; not the sentence, not the rest
    after = _statuses()
    assert after["copy-of-new"] != "evidence" and after["new-in-a-turn"] != "evidence"
    matches = sorted(Match.objects.values_list("record__external_id", "artifact__name"))
    events = Event.objects.count()

    full = records_refilter()
    assert full.excluded == full.released == full.redacted == 0
    assert _statuses() == after
    assert sorted(Match.objects.values_list("record__external_id", "artifact__name")) == matches
    assert Event.objects.count() == events + 1  # the full run's own event, no decision moved
