"""Is the database there and migrated? Asked by `serve` before it starts, and by the command
line when a command fails on the database, so the operator reads what to run, not a traceback."""

import os
import sys
from pathlib import Path

from django.db import DatabaseError, InterfaceError, connection
from django.db.migrations.executor import MigrationExecutor


def command_prefix() -> str:
    """How the operator calls poimen: `python manage.py` in a source tree, else `poimen`."""
    program = os.path.basename(sys.argv[0] if sys.argv else "") or "poimen"
    return "python manage.py" if program == "manage.py" else program


def _pending() -> list:
    """The migrations not applied yet, in the order they would be."""
    executor = MigrationExecutor(connection)
    return [
        migration for migration, _ in executor.migration_plan(executor.loader.graph.leaf_nodes())
    ]


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# PostgreSQL's SQLSTATEs for a database that refuses the write (a read-only transaction or
# standby, a role without the grant), and SQLite's messages for a file it cannot write.
READ_ONLY_SQLSTATES = {"25006": "read-only", "42501": "insufficient privilege"}
SQLITE_READ_ONLY = ("attempt to write a readonly database", "unable to open database file")


def _write_refusal(error: DatabaseError) -> str | None:
    """Why the database refused to write, in a line for the operator; None for any other
    error (a bug, whose traceback is wanted)."""
    sqlstate = getattr(error.__cause__, "sqlstate", None)
    text = _first_line(error)
    if sqlstate in READ_ONLY_SQLSTATES or any(m in text.lower() for m in SQLITE_READ_ONLY):
        return (
            f"the database refuses writes: {text}. Check that the database file and its "
            "folder may be written by this user, or the role's grants (DATABASE_URL)"
        )
    return None


# A connection that was lost (killed, the server restarted, the network): PostgreSQL's
# connection-exception and admin-shutdown SQLSTATEs, and how a dead connection is reported.
LOST_SQLSTATES = ("08", "57P01", "57P02", "57P03")
LOST_MESSAGES = ("server closed the connection", "connection already closed", "terminating")


def _connection_lost(error: DatabaseError) -> str | None:
    """The line for a command whose database connection was lost, or None."""
    sqlstate = getattr(error.__cause__, "sqlstate", None) or ""
    text = _first_line(error)
    if not (
        isinstance(error, InterfaceError)
        or sqlstate.startswith(LOST_SQLSTATES)
        or any(m in text.lower() for m in LOST_MESSAGES)
    ):
        return None
    return (
        f"the database connection was lost ({text}); what was written is kept: run the same "
        "command again and it goes on from there"
    )


def _missing_folder() -> str | None:
    """The line for an SQLite database whose folder does not exist (SQLite says only that it
    is "unable to open database file"), or None."""
    if connection.vendor != "sqlite":
        return None
    folder = Path(str(connection.settings_dict["NAME"])).parent
    if folder.is_dir():
        return None
    return (
        f"database unreachable: the SQLite database's folder {folder} does not exist; create "
        "it, or set POIMEN_HOME (or DATABASE_URL) to where the database is to live"
    )


def database_problem() -> str | None:
    """What keeps the database from serving poimen, in a line; None when nothing does."""
    try:
        pending = _pending()
    except DatabaseError as error:
        return _missing_folder() or f"database unreachable: {str(error).strip()}"
    if pending:
        return (
            f"database not migrated ({len(pending)} migration(s) to apply): "
            f"run `{command_prefix()} migrate`"
        )
    return None


def command_failure(command: str, error: DatabaseError) -> str | None:
    """What to tell the operator when `command` failed with a database `error`: what failed,
    and what to do. None when the database is reachable and migrated: a real bug, whose
    traceback is wanted."""
    lost = _connection_lost(error)
    if lost:
        return f"{command} failed: {lost}"
    try:
        pending = _pending()
    except DatabaseError:
        return database_problem()
    if not pending:
        refusal = _write_refusal(error)
        return None if refusal is None else f"{command} failed: {refusal}"
    if command == "migrate":
        # Migrations are applied in order, each in its transaction: the first one left
        # is the one that failed.
        failed = pending[0]
        return (
            f"migrate failed applying {failed.app_label}.{failed.name}: {_first_line(error)}; "
            f"{len(pending)} migration(s) not applied. Fix the cause, then run "
            f"`{command_prefix()} migrate` again"
        )
    return f"{command} failed: {_first_line(error)}\n{database_problem()}"


_identities: dict[str, str] = {}


def database_identity() -> str:
    """Which database this process writes to, the same from any machine that reaches it by
    whatever host name: its name and when its first migration was applied (a queued command
    and its workers must agree on it)."""
    name = str(connection.settings_dict["NAME"])
    if name not in _identities:
        with connection.cursor() as cursor:
            cursor.execute("SELECT min(applied) FROM django_migrations")
            (applied,) = cursor.fetchone()
        first = applied.isoformat() if hasattr(applied, "isoformat") else str(applied)
        _identities[name] = f"{connection.vendor} {name} (created {first})"
    return _identities[name]
