"""The command line: `python manage.py …` in a source tree, the `poimen` console script once
installed. Both are Django's manage.py, and neither shows a traceback for a database that is
unreachable or not migrated yet."""

import os
import sys


def main(argv: list[str] | None = None) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")
    from django.core.management import execute_from_command_line
    from django.db import DatabaseError

    argv = sys.argv if argv is None else argv
    try:
        execute_from_command_line(argv)
    except DatabaseError as error:
        from poimen.readiness import command_failure

        problem = command_failure(argv[1] if len(argv) > 1 else "", error)
        if problem is None:
            raise  # the schema is in place: a real bug, whose traceback is wanted
        sys.stderr.write(problem + "\n")
        sys.exit(2)
