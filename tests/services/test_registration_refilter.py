"""Every registration refilters what it could change (services/refilter_affected.py's
registration_refilter): after an artifact is registered, no evidence record copies it.

As a property: generated records (tests/strategies.py: passages of the artifacts in the shapes
agents show them, among genuine text) are stored while the artifacts they copy are not
registered yet, so they are evidence; the artifacts are then registered one at a time, by
artifact_register (the add_artifact command's and, through the API, the hook's and the
adapters') or by artifacts_import, and once each commit has run its callbacks, verify_derived
passes on the records and every stored decision is a fresh check's. Each example runs in a
transaction of its own that is rolled back, so every example registers its artifacts anew.
"""

import json
import uuid

import pytest
from django.db import transaction
from hypothesis import given
from hypothesis import strategies as st

from poimen.models import Record
from poimen.services import artifact_register, artifacts_import, derived_verify, records_ingest
from poimen.services.refilter_affected import registered_refilter
from tests.rules.test_evidence_fixed_point import decisions, fresh_decisions
from tests.strategies import ARTIFACTS, on_the_database, records

pytestmark = pytest.mark.django_db

EXAMPLES = on_the_database(8)


def _ingested(texts, tmp_path) -> list[int]:
    source = f"generated-{uuid.uuid4().hex[:8]}"
    path = tmp_path / f"{source}.jsonl"
    lines = [json.dumps({"id": f"r{n}", "text": text}) for n, text in enumerate(texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records_ingest(paths=[path], source=source)
    return list(Record.objects.filter(source=source).values_list("pk", flat=True))


def _by_register(tmp_path):
    for kind, name, text in ARTIFACTS:
        artifact_register(kind=kind, name=name, text=text)


def _by_import(tmp_path):
    folder = tmp_path / f"skills-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    for kind, name, text in ARTIFACTS:
        if kind == "skill":
            (folder / f"{name}.md").write_text(text, encoding="utf-8")
    artifacts_import(path=folder, kind="skill")


@EXAMPLES
@given(
    texts=st.lists(records(), min_size=1, max_size=4),
    register=st.sampled_from([_by_register, _by_import]),
)
def test_after_a_registration_no_evidence_record_copies_an_artifact(
    tmp_path, django_capture_on_commit_callbacks, texts, register
):
    with transaction.atomic():
        ids = _ingested(texts, tmp_path)
        with django_capture_on_commit_callbacks(execute=True):
            register(tmp_path)
        assert derived_verify(record_ids=ids, scope="property test").offenders == []
        assert decisions(ids) == fresh_decisions(ids)
        transaction.set_rollback(True)


def test_the_refilter_runs_once_the_registration_commits_and_moves_the_copy(
    tmp_path, django_capture_on_commit_callbacks
):
    kind, name, text = ARTIFACTS[0]
    [copy] = _ingested([text], tmp_path)
    assert Record.objects.get(pk=copy).status == Record.Status.EVIDENCE
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        artifact_register(kind=kind, name=name, text=text)
    # not before the commit: a refilter then would read the index without the artifact
    assert Record.objects.get(pk=copy).status == Record.Status.EVIDENCE
    for callback in callbacks:
        callback()
    assert Record.objects.get(pk=copy).status != Record.Status.EVIDENCE
    # registered again: nothing created, nothing to refilter
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        artifact_register(kind=kind, name=name, text=text)
    assert callbacks == []


def test_the_queues_task_body_refilters_the_artifacts_it_is_given(
    tmp_path, django_capture_on_commit_callbacks
):
    kind, name, text = ARTIFACTS[1]
    [copy] = _ingested([text], tmp_path)
    with django_capture_on_commit_callbacks(execute=False):
        artifact = artifact_register(kind=kind, name=name, text=text).artifact
    assert Record.objects.get(pk=copy).status == Record.Status.EVIDENCE
    result = registered_refilter([artifact.pk])
    assert result.checked == 1
    assert Record.objects.get(pk=copy).status != Record.Status.EVIDENCE


def test_a_queue_that_cannot_be_reached_leaves_the_refilter_to_the_registering_process(
    tmp_path, django_capture_on_commit_callbacks, settings
):
    # nothing listens on port 1: the message is refused, the records are checked here
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    kind, name, text = ARTIFACTS[2]
    [copy] = _ingested([text], tmp_path)
    with django_capture_on_commit_callbacks(execute=True):
        artifact_register(kind=kind, name=name, text=text)
    assert Record.objects.get(pk=copy).status != Record.Status.EVIDENCE
