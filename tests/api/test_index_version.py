"""Each process's index follows the state in the database, refreshed by what changed."""

import subprocess
import sys
import time

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from filter import ArtifactRecord
from poimen.decision.artifact_index import artifact_index_load
from poimen.decision.artifact_records import artifact_from_record
from poimen.decision.index_store import index_store
from poimen.decision.index_version import LiveIndex, index_state, index_version, signal_path
from poimen.models import KindPolicy
from poimen.services import threshold_change
from tests.conftest import UNRELATED, demo_skill

SKILLS = ("release-notes", "incident-review", "postgres-migrations")


def _same_index(live, full) -> None:
    """`live` (refreshed step by step) holds what a full load holds, the same way."""
    assert live.artifact_ids == full.artifact_ids and live.policies == full.policies
    a, b = live.filter, full.filter
    assert [x.key for x in a.artifacts] == [x.key for x in b.artifacts]
    assert (a.thresholds, a.min_shared, a.default_min_shared) == (
        b.thresholds,
        b.min_shared,
        b.default_min_shared,
    )
    # the same entries, in whatever segments: every lookup gives the same
    probe = np.concatenate([x.shingles for x in b.artifacts] or [np.empty(0, dtype=np.uint64)])
    for mine, theirs in zip(a._index.lookup(probe), b._index.lookup(probe), strict=True):
        assert np.array_equal(mine, theirs)
    texts = [demo_skill(s) for s in SKILLS] + [UNRELATED, demo_skill(SKILLS[0])[:900]]
    for mine, theirs in zip(a.check_many(texts), b.check_many(texts), strict=True):
        assert (mine.derived, [(m.artifact.key, m.overlap) for m in mine.matches]) == (
            theirs.derived,
            [(m.artifact.key, m.overlap) for m in theirs.matches],
        )


def test_a_second_index_sees_an_artifact_registered_through_the_first(make_artifact):
    first, second = LiveIndex(), LiveIndex()
    assert len(first.current()[0].filter) == 0 and len(second.current()[0].filter) == 0
    make_artifact(name="release-notes")
    index, version = second.current()
    assert len(index.filter) == 1 and version == index_version()
    assert len(first.current()[0].filter) == 1


def test_a_new_artifact_is_added_to_the_index_not_loaded_with_all_the_others(make_artifact):
    live = LiveIndex()
    make_artifact(name=SKILLS[0])
    live.current(), live.current()
    assert (live.loads, live.extensions) == (1, 0)
    for name in SKILLS[1:]:
        make_artifact(name=name)
        with CaptureQueriesContext(connection) as queries:
            live.current()
        # the state, the new ids, the new row: no other artifact is read again
        assert len(queries.captured_queries) == 3
    assert (live.loads, live.extensions) == (1, 2)
    _same_index(live.index, artifact_index_load())


def test_a_policy_change_alone_reads_no_artifact(make_artifact):
    for name in SKILLS:
        make_artifact(name=name)
    live = LiveIndex()
    before_index, before = live.current()
    threshold_change(kind="skill", value=0.5, reason="tests")
    with CaptureQueriesContext(connection) as queries:
        index, after = live.current()
    assert not any('"shingles"' in q["sql"] for q in queries.captured_queries)
    assert after != before and index.policies.threshold_for("skill") == 0.5
    assert index.filter.threshold_for("skill") == 0.5 and live.extensions == 1
    # the index in use before is left as it was, for a check still running with it
    assert before_index.filter.threshold_for("skill") == 0.8
    assert before_index.policies.threshold_for("skill") == 0.8
    _same_index(index, artifact_index_load())


def test_an_artifact_committed_late_under_a_lower_id_is_not_missed(make_artifact):
    """Two registrations race: the one given the higher id commits first. The highest id is
    then already known when the other commits; the count still moves the state."""
    live = LiveIndex()
    first = make_artifact(name=SKILLS[0])
    live.current()
    early, late = (
        artifact_from_record(ArtifactRecord.from_text(kind="skill", name=n, text=demo_skill(n)))
        for n in SKILLS[1:]
    )
    early.pk, late.pk = first.pk + 20, first.pk + 10
    early.save()
    live.current()
    late.save()
    index, version = live.current()
    assert version == index_state().version and len(index.filter) == 3
    assert live.loads == 2  # the late one cannot be told from the ids alone: loaded again
    _same_index(index, artifact_index_load())


def test_the_index_is_refreshed_only_when_the_state_moves(make_artifact):
    live = LiveIndex()
    live.current(), live.current()
    make_artifact(name="release-notes")
    live.current(), live.current()
    assert live.loads + live.extensions == 2


def test_a_policy_change_moves_the_version(make_artifact):
    make_artifact(name="release-notes")
    live = LiveIndex()
    before = live.current()[1]
    threshold_change(kind="skill", value=0.5, reason="tests")
    index, after = live.current()
    assert after != before and index.policies.threshold_for("skill") == 0.5


def test_a_kinds_index_adds_only_that_kinds_artifacts(make_artifact):
    live = LiveIndex(kind="reference")
    make_artifact(kind="reference", name="django-bulk-create", text=demo_skill(SKILLS[0]))
    live.current()
    make_artifact(name=SKILLS[1])
    make_artifact(kind="reference", name="postgres-lock-timeout", text=demo_skill(SKILLS[2]))
    index, _ = live.current()
    assert {key[0] for key in index.artifact_ids} == {"reference"} and len(index.filter) == 2
    assert live.extensions == 1
    _same_index(index, artifact_index_load(kind="reference"))


def test_the_client_and_the_hook_import_nothing_of_django():
    code = (
        "import sys, poimen.agent.client, poimen.agent.hook, poimen.readers; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_check_reads_no_state_while_nothing_was_written(make_artifact):
    make_artifact(name=SKILLS[0])
    live = LiveIndex()
    live.current()
    with CaptureQueriesContext(connection) as queries:
        live.current(), live.current()
    assert not queries.captured_queries and live.state_reads == 1


def test_a_write_that_bypasses_the_models_is_seen_after_the_recheck_time(make_artifact, settings):
    settings.POIMEN_INDEX_RECHECK_SECONDS = 0.05
    make_artifact(name=SKILLS[0])
    threshold_change(kind="skill", value=0.5, reason="tests")
    live = LiveIndex()
    live.current()
    KindPolicy.objects.filter(kind="skill").update(threshold=0.6)  # no signal
    time.sleep(0.06)
    assert live.current()[0].policies.threshold_for("skill") == 0.6


@pytest.fixture
def shared_store(settings, tmp_path):
    settings.POIMEN_INDEX_DIR = str(tmp_path)
    return index_store


def test_with_a_store_processes_share_the_shingles_and_read_only_what_they_lack(
    make_artifact, shared_store, django_capture_on_commit_callbacks
):
    first, second = LiveIndex(), LiveIndex()
    make_artifact(name=SKILLS[0])
    first.current()
    store = shared_store()
    appended = store.read().generation
    second.current()
    assert store.read().generation == appended  # the second maps the first's segment
    for name in SKILLS[1:]:
        with django_capture_on_commit_callbacks(execute=True):
            make_artifact(name=name)
        assert signal_path().exists()
        for live in (first, second):
            index, version = live.current()
            assert version == index_version() and len(index.filter) == SKILLS.index(name) + 1
    full = artifact_index_load()
    for live in (first, second):
        _same_index(live.index, full)
        # the process keeps no artifact's shingles or text: the store has them
        assert all(not len(a.shingles) and a.text is None for a in live.index.filter.artifacts)
    assert store.read().end == len(SKILLS)


def test_a_store_of_another_database_is_emptied_not_trusted(make_artifact, shared_store):
    make_artifact(name=SKILLS[0])
    store = shared_store()
    store.append([(0, np.arange(30, dtype=np.uint64))], meta={"last": [-1, "not this one"]})
    index, _ = LiveIndex().current()
    _same_index(index, artifact_index_load())
    assert store.read().meta["last"][0] == index.artifact_ids[index.filter.artifacts[0].key]
