"""POST /api/v1/check through Django's test client."""

import pytest

from poimen.models import Event, IngestRun, Match, Record
from tests.conftest import UNRELATED, demo_skill

CHECK = "/api/v1/check"


@pytest.fixture
def skill(make_artifact):
    return make_artifact(name="release-notes")


def test_a_copy_is_excluded_with_its_match_and_spans_and_stored_once(api, skill):
    text = f"Sure, here it is:\n\n{skill.text}"
    body = {
        "records": [{"id": "m1", "text": text, "role": "assistant"}, {"id": 2, "text": UNRELATED}]
    }
    answer = api.post(CHECK, body)
    assert answer.status_code == 200
    first, second = answer.json()["results"]
    assert (first["id"], first["status"], first["derived"], first["stored"]) == (
        "m1",
        "excluded",
        True,
        "new",
    )
    match = first["matches"][0]
    assert (match["kind"], match["name"], match["sha256"]) == ("skill", skill.name, skill.sha256)
    assert match["overlap"] > match["threshold"]
    start, end = match["spans"][0]
    assert start >= len("Sure, here it is:") and text[start:end] in skill.text
    assert end - start > len(skill.text) / 2
    assert (second["id"], second["status"], second["matches"]) == (2, "evidence", [])
    stored = Record.objects.get(source="api", external_id="m1")
    assert stored.status == "excluded" and stored.role == "assistant"
    assert Match.objects.filter(record=stored, artifact=skill).exists()
    event = Event.objects.get(type="derived_excluded", record=stored)
    assert event.actor.username == "memory-system"
    stored_event = Event.objects.get(type="records_stored")
    assert stored_event.actor.username == "memory-system" and stored_event.data["stored"] == 2

    again = api.post(CHECK, body).json()["results"]
    assert [r["stored"] for r in again] == ["already", "already"]
    assert [r["status"] for r in again] == ["excluded", "evidence"]
    assert Record.objects.filter(source="api").count() == 2
    assert Event.objects.filter(type="derived_excluded").count() == 1
    assert Event.objects.filter(type="records_stored").count() == 1


def test_store_false_answers_and_writes_nothing(api, skill):
    counts = (Record.objects.count(), Event.objects.count(), IngestRun.objects.count())
    answer = api.post(CHECK, {"records": [{"id": "x", "text": skill.text}], "store": False})
    (result,) = answer.json()["results"]
    assert (result["status"], result["stored"]) == ("excluded", None)
    assert answer.json()["run"] is None
    assert (Record.objects.count(), Event.objects.count(), IngestRun.objects.count()) == counts


def test_each_bad_item_is_its_own_error_and_the_rest_is_answered(api, skill, settings):
    settings.POIMEN_MAX_RECORD_BYTES = 1000
    records = [
        {"id": "ok", "text": UNRELATED[:900]},
        {"id": "no-text"},
        {"id": "number", "text": 5},
        {"text": "no id"},
        {"id": "empty", "text": "   "},
        {"id": "big", "text": "word " * 300},
        {"id": "nul", "text": "a\u0000b"},
        {"id": "deep", "text": "fine", "metadata": {"a": "\u0000"}},
        "a string",
        {"id": True, "text": "a bool id"},
        {"id": {"an": "object"}, "text": "an object id"},
    ]
    results = api.post(CHECK, {"records": records}).json()["results"]
    assert len(results) == len(records)
    assert results[0]["status"] == "evidence" and results[0]["error"] is None
    errors = [r["error"] for r in results[1:]]
    assert all(errors), errors
    assert errors[0].startswith("records[1]: ") and "text" in errors[0]
    assert "int, not a string" in errors[1]
    assert '"id"' in errors[2]
    assert "empty text" in errors[3]
    assert "exceeds the limit" in errors[4]
    assert "NUL" in errors[5] and "NUL" in errors[6]
    assert errors[7] == "records[8]: not a JSON object but str"
    assert [r["id"] for r in results[-3:]] == [None, None, None]
    assert Record.objects.filter(source="api").count() == 1


def test_the_same_record_twice_in_one_request_is_stored_once(api):
    one = {"id": "dup", "text": UNRELATED}
    results = api.post(CHECK, {"records": [one, one]}).json()["results"]
    assert [r["stored"] for r in results] == ["new", "already"]
    assert Record.objects.filter(external_id="dup").count() == 1


def test_a_record_sent_again_under_another_source_with_its_identity_is_stored_once(api):
    one = {"id": "s1/u1/0", "text": UNRELATED, "identity": "claude-code:s1/u1/0"}
    first = api.post(CHECK, {"records": [one]}).json()["results"][0]
    again = api.post(CHECK, {"records": [{**one, "source": "laptop"}]}).json()["results"][0]
    assert (first["stored"], again["stored"]) == ("new", "already")
    assert Record.objects.get().identity == "claude-code:s1/u1/0"
    bad = [{**one, "identity": 7}, {**one, "id": "x", "identity": "i" * 501}]
    errors = [r["error"] for r in api.post(CHECK, {"records": bad}).json()["results"]]
    assert '"identity" is int' in errors[0] and "longer than 500" in errors[1]


def test_stored_records_join_the_tokens_run_of_the_day(api):
    api.post(CHECK, {"records": [{"id": "a", "text": UNRELATED}]})
    answer = api.post(CHECK, {"records": [{"id": "b", "text": UNRELATED + " More."}]}).json()
    run = IngestRun.objects.get(pk=answer["run"])
    assert IngestRun.objects.count() == 1
    assert run.source.startswith("api: tests (poimen_")
    assert run.counts["new"] == 2 and run.counts["read"] == 2


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ('{"records": [', "malformed JSON"),
        ("[1, 2]", ""),
        ('{"records": "no"}', "records"),
        ('{"records": [], "store": "yes"}', "store"),
        ("\xff\xfe", ""),
    ],
)
def test_a_malformed_body_is_400_with_a_json_reason(api, body, detail):
    answer = api.post(CHECK, body, raw=True)
    assert answer.status_code == 400
    assert detail in answer.json()["detail"]


def test_over_a_thousand_records_is_413_naming_the_limits(api):
    answer = api.post(CHECK, {"records": [{"id": i, "text": "x"} for i in range(1001)]})
    assert answer.status_code == 413
    assert "1,000 records" in answer.json()["detail"] and "MB" in answer.json()["detail"]
    assert not Record.objects.exists()


def test_over_ten_megabytes_is_413_before_anything_is_read(api, settings):
    settings.POIMEN_API_MAX_BYTES = 50_000
    answer = api.post(CHECK, {"records": [{"id": 1, "text": "word " * 20_000}]})
    assert answer.status_code == 413
    assert "50,000 bytes" in answer.json()["detail"] and "1,000 records" in answer.json()["detail"]
    assert not Record.objects.exists()


def test_the_api_limit_is_the_apis_alone(api, admin_client, settings):
    """A body over Django's DATA_UPLOAD_MAX_MEMORY_SIZE is the API's to take (up to its 10
    MB); the desk's requests keep Django's limit."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 20_000
    text = "word " * 10_000  # 50 KB
    answer = api.post(CHECK, {"records": [{"id": 1, "text": text}], "store": False})
    assert answer.status_code == 200 and answer.json()["results"][0]["status"] == "evidence"
    desk = admin_client.post("/password/", {"old_password": text}, follow=False)
    assert desk.status_code == 400  # Django's RequestDataTooBig


def test_a_skill_registered_later_is_in_force_for_the_next_check(api):
    text = demo_skill("incident-review")
    before = api.post(CHECK, {"records": [{"id": 1, "text": text}], "store": False}).json()
    assert before["results"][0]["status"] == "evidence"
    registered = api.post("/api/v1/artifacts", {"kind": "skill", "name": "ir", "text": text})
    assert registered.status_code == 201
    after = api.post(CHECK, {"records": [{"id": 1, "text": text}], "store": False}).json()
    assert after["results"][0]["status"] == "excluded"
    assert after["index_version"] != before["index_version"]


def test_an_artifact_the_index_cannot_use_is_503_json(api, make_artifact):
    from poimen.models import Artifact

    skill = make_artifact(name="release-notes")
    Artifact.objects.filter(pk=skill.pk).update(text="", shingle_k=7)
    answer = api.post(CHECK, {"records": [{"id": 1, "text": UNRELATED}]})
    assert answer.status_code == 503 and "index cannot be built" in answer.json()["detail"]


def test_a_skill_inside_a_longer_turn_is_redacted_with_its_evidence_text(api, skill):
    text = f"{UNRELATED}\n\n{skill.text}\n\n{UNRELATED}"
    (result,) = api.post(CHECK, {"records": [{"id": "turn", "text": text}]}).json()["results"]
    assert (result["status"], result["derived"]) == ("redacted", True)
    assert UNRELATED.split(".")[0] in result["evidence_text"]
    assert len(result["evidence_text"]) < len(text) - len(skill.text) / 2
    stored = api.get("/api/v1/records/api/turn").json()
    assert stored["status"] == "redacted" and stored["evidence_text"] == result["evidence_text"]


def test_a_paste_from_a_skill_and_a_reference_says_its_coverage_across_kinds(api, make_artifact):
    from tests import renderings
    from tests.texts import reference
    from tests.texts import skill as test_skill

    make_artifact(kind="skill", name="git-commit-message", text=test_skill("git-commit-message"))
    make_artifact(kind="reference", name="celery", text=reference("celery-task-retries"))
    text = "\n\n".join(
        renderings.word_slice(t, words=int(len(t.split()) * 0.62), seed=4)
        for t in (test_skill("git-commit-message"), reference("celery-task-retries"))
    )

    (result,) = api.post(CHECK, {"records": [{"id": "p", "text": text}]}).json()["results"]

    assert result["derived"] and result["status"] == "excluded"
    assert all(m["overlap"] < m["threshold"] for m in result["matches"])
    across = result["across_kinds"]
    assert across["kinds"] == ["reference", "skill"] and across["exceeds"]
    assert across["coverage"] > across["threshold"] == 0.8


@pytest.mark.django_db(transaction=True)
def test_a_threshold_committed_between_check_and_write_decides_what_is_stored_and_answered(
    api, skill, monkeypatch
):
    """Another connection commits a threshold change just after the request has read the index
    in force: the write checks the records again under the new threshold, and the answer (its
    statuses, thresholds and index version) is the decision stored."""
    import threading

    from django.db import connection

    from poimen.decision.index_version import index_version, live_index
    from poimen.models import KindPolicy
    from poimen.services import threshold_change
    from tests.factories import near_copy

    # excluded whole when derived: under redact a near copy is a pasted passage at any
    # threshold under 1, and this is about the threshold
    KindPolicy.objects.create(kind=skill.kind, on_derived="exclude")
    copy = near_copy(skill.text)  # excluded at 0.8, evidence at 0.99
    assert (
        api.post(CHECK, {"records": [{"id": "before", "text": copy}]}).json()["results"][0][
            "status"
        ]
        == "excluded"
    )
    read_index = live_index.current_state

    def read_then_change():
        held = read_index()

        def change():
            try:
                threshold_change(kind="skill", value=0.99, reason="raised mid-request")
            finally:
                connection.close()

        thread = threading.Thread(target=change)
        thread.start()
        thread.join(timeout=30)
        return held

    monkeypatch.setattr(live_index, "current_state", read_then_change)
    answer = api.post(
        CHECK, {"records": [{"id": "during", "text": copy}, {"id": "before", "text": copy}]}
    )
    monkeypatch.undo()
    during, before = answer.json()["results"]
    stored = Record.objects.get(source="api", external_id="during")
    assert (during["stored"], during["status"], stored.status) == ("new", "evidence", "evidence")
    assert [m["threshold"] for m in during["matches"]] == [0.99]
    # the record stored earlier is answered by a fresh check under the same policies
    assert (before["stored"], before["status"]) == ("already", "evidence")
    assert answer.json()["index_version"] == index_version()
    assert not Event.objects.filter(type="derived_excluded", record=stored).exists()


def _answered_every_way(make_artifact, skill) -> list[dict]:
    """Records of every outcome: excluded, redacted, across kinds, evidence, an error."""
    from tests import renderings
    from tests.texts import reference
    from tests.texts import skill as test_skill

    make_artifact(kind="skill", name="git-commit-message", text=test_skill("git-commit-message"))
    make_artifact(kind="reference", name="celery", text=reference("celery-task-retries"))
    across = "\n\n".join(
        renderings.word_slice(t, words=int(len(t.split()) * 0.62), seed=4)
        for t in (test_skill("git-commit-message"), reference("celery-task-retries"))
    )
    return [
        {"id": "copy", "text": f"Sure, here it is:\n\n{skill.text}"},
        {"id": "turn", "text": f"{UNRELATED}\n\n{skill.text}\n\n{UNRELATED}"},
        {"id": "across", "text": across},
        {"id": 4, "text": UNRELATED},
        {"id": "no-text"},
    ]


def test_an_answer_is_what_its_schema_makes_of_it(api, make_artifact, skill):
    from poimen.api.check import CheckOut

    records = _answered_every_way(make_artifact, skill)
    for store in (False, True, True):
        answer = api.post(CHECK, {"records": records, "store": store}).json()
        assert answer == CheckOut.model_validate(answer).model_dump(mode="json")
        statuses = [r["status"] for r in answer["results"]]
        assert statuses == ["excluded", "redacted", "excluded", "evidence", None]


def test_a_check_that_stores_nothing_answers_what_storing_answers(api, make_artifact, skill):
    records = _answered_every_way(make_artifact, skill)
    answers = [
        api.post(CHECK, {"records": records, "store": store}).json()["results"]
        for store in (False, True, True)
    ]
    assert [[r["stored"] for r in answer] for answer in answers] == [
        [None] * 4 + [None],
        ["new"] * 4 + [None],
        ["already"] * 4 + [None],
    ]
    for answer in answers:
        for result in answer:
            del result["stored"]
    assert answers[0] == answers[1] == answers[2]
