"""Shared fixtures. Builders (make_artifact, make_record) keep the tests' setup to one line."""

import itertools
from pathlib import Path

import pytest

DEMO_DATA = Path(__file__).resolve().parent.parent / "poimen" / "demo_data"


def demo_skill(name: str) -> str:
    """The text of one of the bundled demo skills (real SKILL.md files)."""
    return (DEMO_DATA / "artifacts" / "skill" / name / "SKILL.md").read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def manifest_in_tmp(settings, tmp_path):
    """No test appends to the project's own vault/.artifacts.jsonl."""
    settings.POIMEN_MANIFEST = tmp_path / "vault" / ".artifacts.jsonl"
    return settings.POIMEN_MANIFEST


@pytest.fixture
def make_artifact(db):
    """make_artifact(kind="skill", name=..., text=...) -> a registered Artifact."""
    from poimen.services import artifact_register

    def make(*, kind="skill", name="release-notes", text=None):
        text = text if text is not None else demo_skill(name)
        return artifact_register(kind=kind, name=name, text=text).artifact

    return make


@pytest.fixture
def make_record(db):
    """make_record(text=..., **fields) -> a Record as a run would have stored it."""
    from poimen.models import IngestRun, Record
    from poimen.readers import content_sha256

    numbers = itertools.count(1)
    runs = []

    def make(*, text="An ordinary note about the week.", source="tests", **fields):
        if not runs:
            runs.append(IngestRun.objects.create(source="tests"))
        fields.setdefault("external_id", f"rec-{next(numbers)}")
        return Record.objects.create(
            run=runs[0], source=source, text=text, sha256=content_sha256(text), **fields
        )

    return make
