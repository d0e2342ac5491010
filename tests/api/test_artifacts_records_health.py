"""Artifacts registered once (201, then 200), listed and read; a record's stored decision;
health; the schema and the docs page."""

from filter import ArtifactRecord
from poimen.ledger.manifest import manifest_read
from poimen.models import Artifact, Event
from tests.conftest import UNRELATED, demo_skill

ARTIFACTS = "/api/v1/artifacts"


def test_registering_is_201_then_200_with_one_manifest_line(api, manifest_in_tmp):
    body = {"kind": "skill", "name": "release-notes", "text": demo_skill("release-notes")}
    first, second = api.post(ARTIFACTS, body), api.post(ARTIFACTS, body)
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["id"] == second.json()["id"]
    assert first.json()["manifest_appended"] is True and second.json()["manifest_appended"] is False
    assert len(list(manifest_read(manifest_in_tmp))) == 1
    event = Event.objects.get(type="artifact_registered")
    assert event.actor.username == "memory-system"


def test_a_manifest_line_registers_too(api):
    line = ArtifactRecord.from_text(kind="reference", name="guide", text=UNRELATED).to_dict()
    answer = api.post(ARTIFACTS, {"manifest_line": line})
    assert answer.status_code == 201 and answer.json()["kind"] == "reference"


def test_a_bad_artifact_is_400_with_the_reason(api):
    assert "missing: text" in api.post(ARTIFACTS, {"kind": "skill", "name": "x"}).json()["detail"]
    bad_kind = api.post(ARTIFACTS, {"kind": "Bad Kind", "name": "x", "text": "y"})
    assert bad_kind.status_code == 400 and "kind" in bad_kind.json()["detail"]
    bad_line = api.post(ARTIFACTS, {"manifest_line": {"kind": "skill"}})
    assert bad_line.status_code == 400 and "manifest_line" in bad_line.json()["detail"]


def test_artifacts_are_listed_by_kind_and_read_one_by_one(api, make_artifact):
    skill = make_artifact(name="release-notes")
    make_artifact(kind="reference", name="guide", text=UNRELATED)
    listed = api.get(ARTIFACTS, kind="skill").json()
    assert listed["count"] == 1 and listed["items"][0]["name"] == "release-notes"
    assert api.get(ARTIFACTS).json()["count"] == 2
    one = api.get(f"{ARTIFACTS}/{skill.pk}").json()
    assert one["text"] == skill.text and one["has_text"] is True
    assert api.get(f"{ARTIFACTS}/999999").status_code == 404


def test_a_records_stored_decision_is_read_by_source_and_id(api, make_artifact):
    skill = make_artifact(name="release-notes")
    api.post("/api/v1/check", {"records": [{"id": "s/u/0", "text": skill.text}]})
    stored = api.get("/api/v1/records/api/s/u/0")
    assert stored.status_code == 200
    body = stored.json()
    assert (body["id"], body["status"], body["derived"]) == ("s/u/0", "excluded", True)
    assert body["matches"][0]["sha256"] == skill.sha256 and body["matches"][0]["spans"]
    assert api.get("/api/v1/records/api/nope").status_code == 404


def test_health_needs_no_token_and_tells_the_index_and_the_limits(anonymous_api, make_artifact):
    make_artifact(name="release-notes")
    body = anonymous_api.get("/api/v1/health").json()
    assert (body["status"], body["database"], body["artifacts"]) == ("ok", "ok", 1)
    assert (
        body["index_version"]
        == f"a{Artifact.objects.get().pk}-n1-p" + body["index_version"].split("-p")[1]
    )
    assert body["limits"] == {"records": 1000, "bytes": 10 * 1024 * 1024}


def test_the_schema_is_public_and_names_every_status(anonymous_api):
    schema = anonymous_api.get("/api/v1/openapi.json").json()
    assert {"/api/v1/check", "/api/v1/artifacts", "/api/v1/health"} <= set(schema["paths"])
    result = schema["components"]["schemas"]["ResultOut"]["properties"]["status"]
    assert {"evidence", "excluded"} <= set(result["anyOf"][0]["enum"])
    record = schema["components"]["schemas"]["CheckIn"]["properties"]["records"]["items"]
    assert set(record["required"]) == {"id", "text"}


def test_the_docs_page_runs_only_our_own_files_under_the_desks_csp(anonymous_api):
    page = anonymous_api.get("/api/v1/docs")
    html = page.content.decode()
    assert page.status_code == 200
    assert "script-src 'self'" in page["Content-Security-Policy"]
    assert "http" not in html.replace("http-equiv", "")  # no CDN
    assert "<script>" not in html and "<style" not in html
    assert "/static/ninja/swagger-ui-bundle.js" in html
