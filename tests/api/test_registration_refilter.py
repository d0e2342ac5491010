"""POST /api/v1/artifacts (the hook's registrations and the adapters' injected blocks come this
way) refilters the stored records the new artifact could change, once the registration is
committed: a record stored as evidence before that copies it is evidence no more."""

from poimen.models import Record
from tests.texts import skill

ARTIFACTS = "/api/v1/artifacts"


def test_a_registration_through_the_api_takes_a_stored_copy_out_of_evidence(
    api, django_capture_on_commit_callbacks
):
    text = skill("flaky-test-triage")
    api.post("/api/v1/check", {"records": [{"id": "s/u/0", "text": text}]})
    assert Record.objects.get(external_id="s/u/0").status == Record.Status.EVIDENCE

    with django_capture_on_commit_callbacks(execute=True):
        answer = api.post(ARTIFACTS, {"kind": "skill", "name": "flaky-test-triage", "text": text})
    assert answer.status_code == 201
    assert Record.objects.get(external_id="s/u/0").status != Record.Status.EVIDENCE
    stored = api.get("/api/v1/records/api/s/u/0").json()
    assert stored["matches"][0]["sha256"] == answer.json()["sha256"]
