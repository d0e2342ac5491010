"""A kind's min_shared, set like its other policy values: an injected memory shorter than the
default minimum can never match until its kind's minimum is lowered; a lower or higher value
checks again from their text the records it could move, its dry run moves what applying does,
and the guarantee holds after each."""

import json

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from filter.align import MIN_ANCHORS
from poimen.models import Event, KindPolicy, Record
from poimen.services import (
    InputError,
    artifact_register,
    derived_verify,
    kind_policy_change,
    records_ingest,
)
from tests.texts import turn

pytestmark = pytest.mark.django_db

# An injected memory of 16 words: 12 shingles, under the default min_shared of 20.
MEMORY = (
    "The team deploys the billing service on Thursdays only, after the finance freeze "
    "window closes at noon."
)


@pytest.fixture
def stored(db, tmp_path):
    artifact_register(kind="memory", name="deploy-day", text=MEMORY)
    texts = {
        "echo": f"{turn('unrelated-query-plan')[:400]}\n\n<memory>{MEMORY}</memory>",
        "genuine": turn("unrelated-query-plan"),
        "mention": "We talked about the deploy-day memory again; nothing to add.",
    }
    path = tmp_path / "records.jsonl"
    lines = [json.dumps({"id": key, "text": text}) for key, text in texts.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source="memories")
    return lambda: {r.external_id: r.status for r in Record.objects.filter(source="memories")}


def test_a_short_memory_matches_once_its_kind_needs_fewer_shared_shingles(stored):
    assert settings.POIMEN_DEFAULT_MIN_SHARED > 12
    assert stored()["echo"] == "evidence"  # 12 shared shingles never count at the default

    dry_run = kind_policy_change(kind="memory", min_shared=8, reason="short memories", dry_run=True)
    assert stored()["echo"] == "evidence"
    assert not KindPolicy.objects.filter(kind="memory", min_shared=8).exists()

    applied = kind_policy_change(kind="memory", min_shared=8, reason="short memories")
    assert (dry_run.moves, sorted(dry_run.changed)) == (applied.moves, sorted(applied.changed))
    assert applied.checked >= 1  # checked again from the text
    statuses = stored()
    assert statuses["echo"] != "evidence"
    assert (statuses["genuine"], statuses["mention"]) == ("evidence", "evidence")
    assert derived_verify(scope="min_shared").offenders == []
    event = Event.objects.filter(type="policy_changed", kind="memory").latest("pk")
    assert event.data["new"] == "8 shared shingles"
    echo = Record.objects.get(source="memories", external_id="echo")
    assert echo.events.filter(data__cause="policy_changed").exists()

    kind_policy_change(kind="memory", min_shared=settings.POIMEN_DEFAULT_MIN_SHARED, reason="back")
    assert stored()["echo"] == "evidence"
    assert derived_verify(scope="min_shared").offenders == []


@pytest.mark.parametrize("value", [MIN_ANCHORS - 1, "eight", "8.5", ""])
def test_a_min_shared_under_the_anchor_floor_or_not_whole_is_refused(stored, value):
    with pytest.raises(InputError, match=f"from {MIN_ANCHORS} up"):
        kind_policy_change(kind="memory", min_shared=value, reason="x")
    assert (
        not KindPolicy.objects.filter(kind="memory")
        .exclude(min_shared=settings.POIMEN_DEFAULT_MIN_SHARED)
        .exists()
    )


def test_set_kind_policy_sets_min_shared_and_says_what_it_checked(stored, capsys):
    call_command("set_kind_policy", "memory", "--min-shared", "8", "--dry-run")
    said = capsys.readouterr().out
    assert "would move" in said and "checked again from their text" in said
    assert stored()["echo"] == "evidence"
    call_command("set_kind_policy", "memory", "--min-shared", "8", "--reason", "short memories")
    assert stored()["echo"] != "evidence"
    with pytest.raises(CommandError, match="min shared"):
        call_command("set_kind_policy", "memory", "--min-shared", "1", "--reason", "x")
