"""Is the database there and migrated? Asked by `serve` before it starts, and by the command
line when a command fails on the database, so the operator reads what to run, not a traceback."""

import os
import sys

from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor


def command_prefix() -> str:
    """How the operator calls poimen: `python manage.py` in a source tree, else `poimen`."""
    program = os.path.basename(sys.argv[0] if sys.argv else "") or "poimen"
    return "python manage.py" if program == "manage.py" else program


def database_problem() -> str | None:
    """What keeps the database from serving poimen, in a line; None when nothing does."""
    try:
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as error:
        return f"database unreachable: {str(error).strip()}"
    if pending:
        return (
            f"database not migrated ({len(pending)} migration(s) to apply): "
            f"run `{command_prefix()} migrate`"
        )
    return None
