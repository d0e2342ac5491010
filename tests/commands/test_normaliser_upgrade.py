"""A team's database upgraded to norm-v2: artifacts stored with norm-v1 shingles, with text and
without, then records ingested, checked again and verified (poimen/decision/artifact_index.py)."""

import io
import json
from dataclasses import replace

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils import timezone

from filter import DEFAULT_PARAMS, ArtifactRecord, sha256_hex, shingle_text
from poimen.decision.artifact_index import stale_artifacts
from poimen.models import SHINGLE_DTYPE, Artifact, Match, Record
from tests import renderings
from tests.factories import demo_skill

pytestmark = pytest.mark.django_db

NORM_V1 = replace(DEFAULT_PARAMS, normaliser="norm-v1")


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def stored_under_norm_v1(name: str, *, text: str, shingles_of: str) -> Artifact:
    """A row as norm-v1 stored it: `shingles_of`'s shingles, labelled norm-v1."""
    shingles, n_tokens = shingle_text(shingles_of)
    return Artifact.objects.create(
        kind="skill",
        name=name,
        sha256=sha256_hex(demo_skill(name)),
        text=text,
        shingle_normaliser=NORM_V1.normaliser,
        shingle_k=NORM_V1.k,
        shingle_hash=NORM_V1.hash,
        shingles=np.ascontiguousarray(shingles, dtype=SHINGLE_DTYPE).tobytes(),
        n_tokens=n_tokens,
        emitted_at=timezone.now(),
    )


def fullwidth_tags(text: str) -> str:
    """The copy a renderer made HTML of, its tags then typed in fullwidth letters."""
    return renderings.fullwidth_letters(renderings.render_html(text), every=1)


@pytest.fixture
def upgraded(tmp_path):
    """release-notes stored with text (its norm-v1 shingles out of date: made of another text),
    incident-review as a manifest line alone (norm-v1 shingles, no text)."""
    with_text = stored_under_norm_v1(
        "release-notes", text=demo_skill("release-notes"), shingles_of="an older text"
    )
    shingles_only = stored_under_norm_v1(
        "incident-review", text="", shingles_of=demo_skill("incident-review")
    )
    records = tmp_path / "records.jsonl"
    rows = [
        {"id": "fullwidth", "text": fullwidth_tags(demo_skill("release-notes"))},
        {"id": "quoted", "text": renderings.quote(demo_skill("incident-review"))},
        {"id": "mention", "text": "The incident-review skill kept our postmortem short."},
    ]
    records.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return with_text, shingles_only, records


def test_after_the_bump_checks_go_on_and_the_artifacts_without_text_are_named(upgraded, client):
    with_text, shingles_only, records = upgraded

    out, err = run("ingest", str(records))

    statuses = dict(Record.objects.values_list("external_id", "status"))
    assert statuses == {"fullwidth": "excluded", "quoted": "excluded", "mention": "evidence"}
    with_text.refresh_from_db()
    assert with_text.shingle_normaliser == DEFAULT_PARAMS.normaliser  # made again, stored
    assert np.array_equal(with_text.shingle_array, shingle_text(with_text.text)[0])
    shingles_only.refresh_from_db()
    assert shingles_only.shingle_normaliser == "norm-v1"  # kept as it was: no text
    assert "skill/incident-review" in err and "add_artifact" in err
    assert "release-notes" not in err

    health = client.get("/api/v1/health").json()
    assert health["status"] == "ok"
    assert health["stale_artifacts"] == ["skill/incident-review"]
    assert health["unusable_artifacts"] == []
    assert "register each again with its text" in health["notice"]

    out, err = run("verify_derived")
    assert "0 still derived" in out and "skill/incident-review" in err


def test_the_overview_names_the_artifacts_without_text(upgraded, client, reviewer):
    client.force_login(reviewer)
    page = client.get(reverse("overview")).content.decode()
    assert 'id="stale-artifacts"' in page and "skill/incident-review" in page
    assert "release-notes" not in page.split('id="stale-artifacts"')[1].split("</div>")[0]


def test_registering_the_text_again_brings_the_artifact_up_to_date(upgraded, tmp_path, client):
    _, shingles_only, _ = upgraded
    path = tmp_path / "SKILL.md"
    path.write_text(demo_skill("incident-review"), encoding="utf-8")

    out, _ = run("add_artifact", str(path), "--kind", "skill", "--name", "incident-review")

    assert "registered" in out
    shingles_only.refresh_from_db()
    assert shingles_only.text == demo_skill("incident-review")
    assert shingles_only.shingle_normaliser == DEFAULT_PARAMS.normaliser
    assert not stale_artifacts()
    assert client.get("/api/v1/health").json()["notice"] is None
    assert Artifact.objects.count() == 2  # the row filled in, not a second one


def test_stored_decisions_keep_their_spans_and_refilter_decides_again(upgraded, make_record):
    _, _, records = upgraded
    run("ingest", str(records))
    quoted = Record.objects.get(external_id="quoted")
    spans = list(Match.objects.filter(record=quoted).values_list("spans", flat=True))
    # norm-v1 let this copy through: stored as evidence before the bump
    missed = make_record(text=fullwidth_tags(demo_skill("release-notes")) + "\n")

    out, _ = run("refilter")

    missed.refresh_from_db()
    assert missed.status == Record.Status.EXCLUDED
    assert list(Match.objects.filter(record=quoted).values_list("spans", flat=True)) == spans
    start, end = spans[0][0]
    assert "incident" in quoted.text[start:end].lower()  # offsets into the original text


def test_an_artifact_no_version_can_match_stops_the_checks_and_says_how_to_fix(upgraded, client):
    _, _, records = upgraded
    Artifact.objects.filter(name="incident-review").update(shingle_normaliser="norm-v0")

    with pytest.raises(CommandError, match="register each again with its text") as raised:
        run("ingest", str(records))
    assert raised.value.returncode == 2
    health = client.get("/api/v1/health").json()
    assert health["status"] == "degraded"
    assert health["unusable_artifacts"] == ["skill/incident-review"]


def test_a_norm_v1_manifest_line_without_text_is_imported_and_matched(tmp_path):
    text = demo_skill("incident-review")
    made = ArtifactRecord.from_text(kind="skill", name="incident-review", text=text)
    manifest = tmp_path / "old-manifest.jsonl"
    manifest.write_text(replace(made, params=NORM_V1).to_json_line(with_text=False) + "\n")
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"id": "quoted", "text": renderings.quote(text)}) + "\n")

    run("import_artifacts", str(manifest))
    _, err = run("ingest", str(records))

    assert Artifact.objects.get().shingle_normaliser == "norm-v1"
    assert stale_artifacts().readable == ["skill/incident-review"]
    assert Record.objects.get().status == Record.Status.EXCLUDED
    assert "skill/incident-review" in err
