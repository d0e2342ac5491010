"""The guarantee through the API's store (tests/rules/test_evidence_fixed_point.py walks the
other paths): generated records checked and stored by POST /api/v1/check are answered with
the decision stored, which is the one a fresh check makes, and what reaches evidence copies
nothing; the same records checked without storing are answered the same."""

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from filter.decide import decide
from poimen.decision.artifact_index import artifact_index_load
from poimen.decision.checked import check_texts
from poimen.decision.record_decision import checked_facts
from poimen.models import Record
from poimen.services import artifact_register, derived_verify
from tests.strategies import ARTIFACTS, records

pytestmark = pytest.mark.django_db

CHECK = "/api/v1/check"


@pytest.fixture
def registered(db):
    for kind, name, text in ARTIFACTS:
        artifact_register(kind=kind, name=name, text=text)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(texts=st.lists(records(), min_size=1, max_size=4))
def test_what_the_api_stores_and_answers_is_the_one_decision(api, registered, texts):
    source = f"api-{uuid.uuid4().hex[:8]}"
    items = [{"id": f"r{n}", "source": source, "text": t} for n, t in enumerate(texts)]
    dry = api.post(CHECK, {"records": items, "store": False}).json()["results"]
    stored = api.post(CHECK, {"records": items}).json()["results"]
    assert [(r["status"], r["evidence_text"]) for r in dry] == [
        (r["status"], r["evidence_text"]) for r in stored
    ]
    rows = {r.external_id: r for r in Record.objects.filter(source=source)}
    index = artifact_index_load()
    checked = check_texts(index.filter, texts)
    for item, answer, verdict in zip(items, stored, checked, strict=True):
        record = rows[item["id"]]
        fresh = decide(checked_facts(record.text, record.metadata, verdict), index.policies)
        assert answer["status"] == record.status == fresh.status
        assert (answer["evidence_text"] or "") == record.evidence_text == fresh.evidence_text
    ids = [record.pk for record in rows.values()]
    assert derived_verify(record_ids=ids, scope="api property").offenders == []
