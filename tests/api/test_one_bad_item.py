"""No item can fail its neighbours in the API: a non-finite number, a NUL, a lone surrogate, a
time out of range and a huge page number are each that item's own error (400, or the item's
`error`), never a 500 or a 503 that withholds the others' answers."""

import json

import pytest

from poimen.models import Artifact, Record
from tests.factories import demo_skill

CHECK, ARTIFACTS = "/api/v1/check", "/api/v1/artifacts"


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_non_finite_number_is_its_items_error_and_the_copy_is_still_excluded(
    api, make_artifact, number
):
    make_artifact(kind="skill", name="incident-review", text=demo_skill("incident-review"))
    copy = json.dumps({"id": "copy", "text": demo_skill("incident-review")})
    body = (
        '{"records": [' + copy + ', {"id": "odd", "text": "a note", "metadata": {"x": %s}}]}'
    ) % number
    answer = api.post(CHECK, body, raw=True)
    assert answer.status_code == 200
    copy_answer, odd_answer = answer.json()["results"]
    assert copy_answer["status"] == "excluded" and copy_answer["stored"] == "new"
    assert odd_answer["id"] == "odd"
    assert odd_answer["error"].startswith("records[1]: metadata holds")
    assert list(Record.objects.values_list("external_id", flat=True)) == ["copy"]


@pytest.mark.parametrize(
    "body, why",
    [
        ('{"kind": "skill", "name": "a\\u0000b", "text": "words"}', "NUL"),
        ('{"kind": "skill", "name": "a\\ud800b", "text": "words"}', "lone surrogate"),
        ('{"kind": "skill", "name": "ab", "text": "words \\udfff"}', "lone surrogate"),
        (
            '{"kind": "skill", "name": "ab", "text": "some words",'
            ' "emitted_at": "9999-12-31T23:00:00-05:00"}',
            "out of range in UTC",
        ),
        (
            '{"manifest_line": {"kind": "skill", "name": "ab", "sha256": "%s", "shingles": [],'
            ' "emitted_at": "9999-12-31T23:00:00-05:00"}}' % ("0" * 64),
            "out of range in UTC",
        ),
        (
            '{"manifest_line": {"kind": "skill", "name": "ab", "sha256": "%s", "shingles": [],'
            ' "emitted_at": "2026-01-01T00:00:00Z", "text": "x\\ud800"}}' % ("0" * 64),
            "lone surrogate",
        ),
    ],
)
def test_an_artifact_that_cannot_be_stored_is_400_naming_why(api, body, why):
    answer = api.post(ARTIFACTS, body, raw=True)
    assert answer.status_code == 400
    assert why in answer.json()["detail"]
    assert not Artifact.objects.exists()
    good = {"kind": "skill", "name": "fine", "text": "the next request is answered"}
    assert api.post(ARTIFACTS, good).status_code == 201


def test_a_huge_page_number_is_400_not_a_database_error(api, make_artifact):
    make_artifact()
    answer = api.get(ARTIFACTS, page=10**30)
    assert answer.status_code == 400 and "page" in answer.json()["detail"]
    assert api.get(ARTIFACTS, page=10**9).json() == {"items": [], "count": 1}
