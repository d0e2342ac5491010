"""Each process's index follows the version in the database."""

import subprocess
import sys

from poimen.index_version import LiveIndex, index_version
from poimen.services import threshold_change


def test_a_second_index_sees_an_artifact_registered_through_the_first(make_artifact):
    first, second = LiveIndex(), LiveIndex()
    assert len(first.current()[0].filter) == 0 and len(second.current()[0].filter) == 0
    make_artifact(name="release-notes")
    index, version = second.current()
    assert len(index.filter) == 1 and version == index_version()
    assert len(first.current()[0].filter) == 1


def test_the_index_is_loaded_again_only_when_the_version_moves(make_artifact):
    live = LiveIndex()
    live.current(), live.current()
    assert live.loads == 1
    make_artifact(name="release-notes")
    live.current(), live.current()
    assert live.loads == 2


def test_a_policy_change_moves_the_version(make_artifact):
    make_artifact(name="release-notes")
    live = LiveIndex()
    before = live.current()[1]
    threshold_change(kind="skill", value=0.5, reason="tests")
    index, after = live.current()
    assert after != before and index.policies.threshold_for("skill") == 0.5


def test_the_client_and_the_hook_import_nothing_of_django():
    code = (
        "import sys, poimen.client, poimen.hook, poimen.readers; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'django'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
