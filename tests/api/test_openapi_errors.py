"""The docs page (/api/v1/docs, from /api/v1/openapi.json) lists the errors each endpoint
answers: every status provoked here is one its schema documents, with a `detail`."""

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from tests.api.conftest import ApiClient


@pytest.fixture
def schema(client, db):
    return client.get("/api/v1/openapi.json").json()


@pytest.fixture
def unpermitted(client, make_token):
    return ApiClient(client, make_token(User.objects.create_user("no-rights")))


def _documented(schema, method, path, status):
    response = schema["paths"][path][method]["responses"].get(str(status))
    assert response is not None, f"{method.upper()} {path} answers {status}, not documented"
    body = response["content"]["application/json"]["schema"]
    assert body["required"] == ["detail"]


@override_settings(POIMEN_API_MAX_RECORDS=1)
def test_every_error_an_endpoint_answers_is_in_its_schema(schema, api, anonymous_api, unpermitted):
    one = {"records": [{"id": 1, "text": "An ordinary note."}], "store": False}
    two = {"records": one["records"] * 2, "store": False}
    artifact = {"kind": "skill", "name": "notes", "text": "Take notes."}
    provoked = [
        ("post", "/api/v1/check", api.post("/api/v1/check", "{", raw=True), 400),
        ("post", "/api/v1/check", anonymous_api.post("/api/v1/check", one), 401),
        ("post", "/api/v1/check", unpermitted.post("/api/v1/check", one), 403),
        ("post", "/api/v1/check", api.post("/api/v1/check", two), 413),
        ("post", "/api/v1/artifacts", api.post("/api/v1/artifacts", {"kind": "x"}), 400),
        ("post", "/api/v1/artifacts", unpermitted.post("/api/v1/artifacts", artifact), 403),
        ("get", "/api/v1/artifacts", api.get("/api/v1/artifacts", page=0), 400),
        ("get", "/api/v1/artifacts/{artifact_id}", api.get("/api/v1/artifacts/999"), 404),
        ("get", "/api/v1/artifacts/{artifact_id}", api.get("/api/v1/artifacts/x"), 400),
        (
            "get",
            "/api/v1/records/{source}/{external_id}",
            api.get("/api/v1/records/laptop/none"),
            404,
        ),
        (
            "get",
            "/api/v1/records/{source}/{external_id}",
            unpermitted.get("/api/v1/records/laptop/none"),
            403,
        ),
    ]
    for method, path, answer, status in provoked:
        assert answer.status_code == status and answer.json()["detail"]
        _documented(schema, method, path, status)
