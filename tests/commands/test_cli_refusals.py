"""The command line on a database that refuses to write (a read-only SQLite file, a PostgreSQL
standby or read-only role): a line naming the refusal and what to check, exit 2, no
traceback. Any other database error on a migrated schema is a bug, and keeps its traceback."""

import pytest
from django.db import OperationalError, ProgrammingError

from poimen import cli


def _failing_with(monkeypatch, error):
    def execute(argv):
        raise error

    monkeypatch.setattr("django.core.management.execute_from_command_line", execute)


@pytest.mark.django_db
def test_a_read_only_database_file_is_named_without_a_traceback(monkeypatch, capsys):
    _failing_with(monkeypatch, OperationalError("attempt to write a readonly database"))
    with pytest.raises(SystemExit) as exited:
        cli.main(["poimen", "ingest", "notes.jsonl"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("ingest failed: the database refuses writes: attempt to write a")
    assert "may be written by this user" in err and "Traceback" not in err


@pytest.mark.django_db
def test_a_read_only_postgresql_transaction_is_named_by_its_sqlstate(monkeypatch, capsys):
    class ReadOnlySqlTransaction(Exception):
        sqlstate = "25006"

    error = OperationalError("cannot execute INSERT in a read-only transaction")
    error.__cause__ = ReadOnlySqlTransaction()
    _failing_with(monkeypatch, error)
    with pytest.raises(SystemExit) as exited:
        cli.main(["poimen", "set_threshold", "skill", "0.8", "--reason", "x"])
    assert exited.value.code == 2
    assert "set_threshold failed: the database refuses writes" in capsys.readouterr().err


@pytest.mark.django_db
def test_another_database_error_on_a_migrated_schema_keeps_its_traceback(monkeypatch):
    _failing_with(monkeypatch, ProgrammingError("column x does not exist"))
    with pytest.raises(ProgrammingError):
        cli.main(["poimen", "ingest", "notes.jsonl"])
