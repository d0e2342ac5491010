"""The manifest line (filter/artifacts.py): an artifact written as one JSON line and read back.

No database. The texts are the acceptance suite's (tests/texts/), so a unit that breaks here
shows up on the same words as the card's tests (docs/card.md).
"""

import json
from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest

from filter import ArtifactRecord, ManifestError
from tests import renderings
from tests.texts import skill


def test_manifest_line_round_trip_keeps_unicode_and_large_hashes():
    text = renderings.fullwidth_letters(skill("django-test-suite")) + "\nÉtape 2 — ﬁn\n"
    artifact = ArtifactRecord.from_text(kind="reference", name="Guide für Tests", text=text)
    assert (artifact.shingles > np.uint64(2**63)).any()

    line = artifact.to_json_line()
    back = ArtifactRecord.from_json_line(line)

    assert "\n" not in line
    assert back.text == text
    assert back.name == "Guide für Tests"
    assert back.sha256 == artifact.sha256
    assert back.emitted_at == artifact.emitted_at
    assert np.array_equal(back.shingles, artifact.shingles)
    assert back.shingles.dtype == np.uint64


@pytest.mark.parametrize(
    "given",
    [
        datetime(2026, 11, 30, 17, 45),
        datetime(2026, 11, 30, 19, 45, tzinfo=timezone(timedelta(hours=2))),
        datetime(2026, 11, 30, 17, 45, tzinfo=UTC),
    ],
    ids=["naive", "utc_plus_two", "utc"],
)
def test_emitted_at_is_kept_as_an_aware_utc_time(given):
    # The contract says aware UTC; a naive time would be read as the server's local time when
    # the manifest line is written, and shift by the server's offset.
    artifact = ArtifactRecord.from_text(
        kind="skill", name="s", text=skill("git-commit-message"), emitted_at=given
    )

    assert artifact.emitted_at == datetime(2026, 11, 30, 17, 45, tzinfo=UTC)
    assert artifact.emitted_at.utcoffset() == timedelta(0)
    assert artifact.to_dict()["emitted_at"] in ("2026-11-30T17:45:00Z", "2026-11-30T17:45:00+00:00")


@pytest.fixture(scope="module")
def good_line_data() -> dict:
    artifact = ArtifactRecord.from_text(kind="skill", name="s", text=skill("git-commit-message"))
    return json.loads(artifact.to_json_line())


def changed(data: dict, **changes) -> str:
    data = dict(data)
    for key, value in changes.items():
        if value is ...:
            del data[key]
        else:
            data[key] = value
    return json.dumps(data)


MALFORMED = {
    "not_json": (lambda data: '{"kind": "skill", "name": ', "JSON"),
    "not_an_object": (lambda data: "[1, 2, 3]", "object"),
    "missing_sha256": (lambda data: changed(data, sha256=...), "sha256"),
    "missing_shingles": (lambda data: changed(data, shingles=...), "shingles"),
    "missing_kind": (lambda data: changed(data, kind=...), "kind"),
    "empty_name": (lambda data: changed(data, name=""), "name"),
    "sha256_not_hex": (lambda data: changed(data, sha256="not-a-digest"), "sha256"),
    "sha256_not_of_text": (lambda data: changed(data, sha256="0" * 64), "sha256"),
    "shingles_not_a_list": (lambda data: changed(data, shingles="1,2,3"), "shingles"),
    "shingle_a_float": (lambda data: changed(data, shingles=[1.5, 2.0]), "shingles"),
    "shingle_negative": (lambda data: changed(data, shingles=[-1]), "shingles"),
    "shingle_over_64_bits": (lambda data: changed(data, shingles=[2**64]), "shingles"),
    "emitted_at_not_a_time": (lambda data: changed(data, emitted_at="yesterday"), "emitted_at"),
    "emitted_at_missing": (lambda data: changed(data, emitted_at=...), "emitted_at"),
    "shingling_k_not_a_number": (
        lambda data: changed(data, shingling={"normaliser": "norm-v1", "k": "five", "hash": "x"}),
        "shingling",
    ),
    "text_not_a_string": (lambda data: changed(data, text=["a", "b"]), "text"),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_manifest_line_error_names_the_line_and_why(good_line_data, case):
    make_line, why = MALFORMED[case]

    with pytest.raises(ManifestError) as raised:
        ArtifactRecord.from_json_line(
            make_line(good_line_data), source="vault/.artifacts.jsonl", lineno=7
        )

    error = raised.value
    assert error.source == "vault/.artifacts.jsonl"
    assert error.lineno == 7
    assert str(error).startswith("vault/.artifacts.jsonl:7: ")
    assert why in str(error).removeprefix("vault/.artifacts.jsonl:7: ")
