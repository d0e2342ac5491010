"""Addresses under /api/v1/ the API does not have, and ids nothing can hold: JSON 404s with a
detail, never the desk's HTML page or a 503."""

import pytest


@pytest.mark.parametrize(
    "path", ["/api/v1/nothing-here", "/api/v1/records/laptop/", "/api/v1/health/"]
)
def test_an_address_the_api_does_not_have_is_a_json_404(client, db, path):
    answer = client.get(path)
    assert answer.status_code == 404
    assert answer["Content-Type"].startswith("application/json")
    assert answer.json()["detail"] == (f"no endpoint GET {path}: the endpoints are in /api/v1/docs")


@pytest.mark.parametrize("path", ["/api/v1/records/laptop/a%00b", "/api/v1/records/a%00/b"])
def test_a_record_id_with_a_nul_is_not_found_not_a_database_failure(api, path):
    answer = api.get(path)
    assert answer.status_code == 404
    assert answer.json()["detail"].startswith("no record ")


def test_the_api_still_answers_its_own_addresses(api):
    assert api.get("/api/v1/health").status_code == 200
    assert api.get("/api/v1/records/api/none").status_code == 404
    assert api.get("/api/v1/openapi.json").json()["info"]["title"] == "poimen"


def test_a_404_names_what_was_not_found(api):
    assert api.get("/api/v1/records/laptop/r-9").json() == {
        "detail": "no record 'r-9' from source 'laptop'"
    }
    assert api.get("/api/v1/artifacts/999999").json() == {"detail": "no artifact 999999"}


@pytest.mark.parametrize(
    "method, path, allowed",
    [("get", "/api/v1/check", "POST"), ("delete", "/api/v1/artifacts", "GET, POST")],
)
def test_a_method_an_endpoint_does_not_take_is_a_json_405(client, db, method, path, allowed):
    answer = getattr(client, method)(path)
    assert answer.status_code == 405 and answer["Allow"] == allowed
    assert answer.json() == {"detail": f"{method.upper()} is not allowed on {path}; use {allowed}"}


@pytest.mark.parametrize(
    "source, external_id",
    [("laptop", "notes/2026/12.md"), ("team/laptops", "r-1"), ("a/b", "c/d")],
)
def test_a_record_is_found_whichever_of_its_source_and_id_holds_a_slash(
    api, make_record, source, external_id
):
    make_record(source=source, external_id=external_id)
    answer = api.get(f"/api/v1/records/{source}/{external_id}")
    assert answer.status_code == 200
    assert (answer.json()["source"], answer.json()["id"]) == (source, external_id)
