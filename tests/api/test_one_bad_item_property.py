"""No item can fail its neighbours, as a property: whatever value that cannot be stored sits
wherever in some records (NaN, Infinity, 1e400, a NUL, a lone surrogate, deep in metadata),
POST /api/v1/check answers 200, refuses those items by their place and stores and answers every
other; ingest of the same lines stores the others and names each bad line."""

import json
import uuid

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from poimen.models import Record
from poimen.services import records_ingest

POISONS = ["NaN", "Infinity", "-Infinity", "1e400", '"a\\u0000b"', '"x\\ud800y"']
WHERE = ["metadata", "text", "id", "session", "role", "deep"]
items = st.lists(
    st.tuples(st.sampled_from([None, *POISONS]), st.sampled_from(WHERE)), min_size=1, max_size=6
)
RUNS = {"deadline": None, "suppress_health_check": [HealthCheck.function_scoped_fixture]}


def line(record_id: str, poison: str | None, where: str) -> str:
    """A records line; with `poison`, that raw JSON value at `where`."""
    fields = {"id": json.dumps(record_id), "text": json.dumps(f"note {record_id}")}
    if poison is not None and where == "metadata":
        fields["metadata"] = '{"score": ' + poison + "}"
    elif poison is not None and where == "deep":
        fields["metadata"] = '{"a": [{"b": {"c": [' + poison + "]}}]}"
    elif poison is not None:
        fields[where] = poison
    return "{" + ", ".join(f'"{k}": {v}' for k, v in fields.items()) + "}"


def refused(poison: str | None, where: str) -> bool:
    """Whether the item must be refused: a value that would be stored. (A number where a
    string belongs may be left out instead: a session or a role that is no string.)"""
    return poison is not None and (where in ("metadata", "deep") or poison.startswith('"'))


@settings(max_examples=30, **RUNS)
@given(items=items)
@example(items=[(None, "text"), ("NaN", "metadata")])
def test_a_bad_item_is_its_own_error_in_the_api(api, items):
    tag = uuid.uuid4().hex[:8]
    lines = [line(f"{tag}-{i}", poison, where) for i, (poison, where) in enumerate(items)]
    answer = api.post("/api/v1/check", '{"records": [' + ", ".join(lines) + "]}", raw=True)
    assert answer.status_code == 200, answer.content[:300]
    results = answer.json()["results"]
    assert len(results) == len(items)
    for i, ((poison, where), result) in enumerate(zip(items, results, strict=True)):
        stored = Record.objects.filter(external_id=f"{tag}-{i}").exists()
        if poison is None:
            assert result["error"] is None and result["status"] == "evidence" and stored
        elif refused(poison, where):
            assert result["error"].startswith(f"records[{i}]: ") and not stored


@settings(max_examples=15, **RUNS)
@given(items=items)
def test_a_bad_line_is_its_own_problem_in_ingest(tmp_path_factory, db, items):
    tag = uuid.uuid4().hex[:8]
    path = tmp_path_factory.mktemp("lines") / "records.jsonl"
    lines = [line(f"{tag}-{i}", poison, where) for i, (poison, where) in enumerate(items)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = records_ingest(paths=[path])
    stored = set(
        Record.objects.filter(external_id__startswith=tag).values_list("external_id", flat=True)
    )
    good = {f"{tag}-{i}" for i, (poison, _) in enumerate(items) if poison is None}
    bad = {f"{tag}-{i}" for i, (poison, where) in enumerate(items) if refused(poison, where)}
    assert good <= stored and not stored & bad
    assert result.new == len(stored)
    assert len(result.problems) >= len(bad)
