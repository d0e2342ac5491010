"""A records line with an empty id, or metadata that is not an object, is a problem named by its
line (it was stored under id "", or its metadata silently dropped); the good lines are read.
The API reads its records as these lines are, so it names the item the same way."""

import json

import pytest

LINES = [
    {"id": "a", "text": "The first good note."},
    {"id": "", "text": "A note without an id."},
    {"id": "  ", "text": "A note with a blank id."},
    {"id": "b", "text": "Metadata as a string.", "metadata": "laptop"},
    {"id": "c", "text": "Metadata as a list.", "metadata": ["laptop"]},
    {"id": "d", "text": "The last good note.", "metadata": {"from": "laptop"}},
]


def test_empty_ids_and_metadata_not_an_object_are_named_by_line(read, tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    records, problems, _ = read(path)
    assert [r.external_id for r in records] == ["a", "d"]
    assert records[1].metadata == {"from": "laptop"}
    assert [str(p) for p in problems] == [
        f'{path}:2: "id" is empty: a record is stored once by its id, so it needs one',
        f'{path}:3: "id" is empty: a record is stored once by its id, so it needs one',
        f'{path}:4: "metadata" is str, not an object',
        f'{path}:5: "metadata" is list, not an object',
    ]


@pytest.mark.django_db
def test_the_api_names_the_item_with_an_empty_id_or_bad_metadata(client, make_token_for_check):
    answer = client.post(
        "/api/v1/check",
        json.dumps({"records": LINES, "store": True}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {make_token_for_check}",
    )
    assert answer.status_code == 200
    errors = [r["error"] for r in answer.json()["results"]]
    assert errors[0] is None and errors[5] is None
    assert errors[1].startswith('records[1]: "id" is empty')
    assert errors[4] == 'records[4]: "metadata" is list, not an object'


@pytest.fixture
def make_token_for_check(db):
    from django.contrib.auth.models import Permission, User

    from poimen.services.tokens import api_token_create

    user = User.objects.create_user("memory-system")
    user.user_permissions.add(Permission.objects.get(codename="check_records"))
    return api_token_create(username=user.username, name="tests").raw
