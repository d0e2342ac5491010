"""A source label with a control character (a newline pasted into --source, a tab in a records
line's "source") is refused, named, before anything is stored; a plain one is stored."""

import json

import pytest
from django.core.management import CommandError, call_command

from poimen.models import Record


@pytest.fixture
def notes(tmp_path):
    path = tmp_path / "notes.jsonl"
    lines = [
        {"id": "a", "text": "A note from the laptop."},
        {"id": "b", "text": "A note with a tab in its source.", "source": "lap\ttop"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.mark.django_db
def test_a_source_option_with_a_control_character_is_refused(notes):
    with pytest.raises(CommandError, match=r"no control character, 'lap\\ntop' holds '\\n'"):
        call_command("ingest", str(notes), "--source", "lap\ntop")
    assert not Record.objects.exists()


@pytest.mark.django_db
def test_a_records_line_whose_source_has_a_control_character_is_named(notes, capsys):
    with pytest.raises(CommandError) as raised:
        call_command("ingest", str(notes), "--source", "laptop")
    assert raised.value.returncode == 2
    assert f'{notes}:2: "source": a source label holds no control character' in (
        capsys.readouterr().err
    )
    assert list(Record.objects.values_list("source", "external_id")) == [("laptop", "a")]
