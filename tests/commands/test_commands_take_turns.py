"""On SQLite, commands take turns instead of failing: set_threshold while an ingest writes, and
several ingests at once, all finish (a transaction waits for the write lock as it begins);
the audit chain they write together is one. Real processes on a shared database file."""

import json

import pytest

from tests.factories import demo_skill, manage

pytestmark = pytest.mark.django_db(transaction=True)


def test_set_threshold_during_ingests_waits_its_turn(database, tmp_path):
    skill = tmp_path / "skill.md"
    skill.write_text(demo_skill("incident-review"), encoding="utf-8")
    added = manage("add_artifact", str(skill), "--kind", "skill", env=database.env)
    assert added.wait(timeout=120) == 0
    inputs = []
    for run in range(3):
        path = tmp_path / f"records-{run}.jsonl"
        lines = [
            json.dumps({"id": f"{run}-{i}", "text": f"note {i} of run {run}: " + "words " * 40})
            for i in range(1500)
        ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        inputs.append(path)
    env = {**database.env, "POIMEN_INGEST_BATCH_SIZE": "100", "POIMEN_INGEST_WORKERS": "0"}
    ingests = [manage("ingest", str(path), env=env) for path in inputs]
    thresholds = [
        manage("set_threshold", "skill", str(value), "--reason", "tuning", env=database.env)
        for value in (0.7, 0.75, 0.8)
    ]
    for process in ingests + thresholds:
        out, errors = process.communicate(timeout=300)
        assert process.returncode == 0, errors.decode()[-2000:]
    assert database.value("SELECT count(*) FROM poimen_record") == 4500
    verified = manage("verify_audit", env=database.env)
    out, errors = verified.communicate(timeout=120)
    assert verified.returncode == 0, out.decode() + errors.decode()
