"""The command line: `python manage.py …` in a source tree, the `poimen` console script once
installed. Both are Django's manage.py, and neither shows a traceback for a database that is
unreachable or not migrated yet. `poimen mcp` is the MCP server of poimen.adapters.mcp."""

import os
import sys


def version() -> str:
    """What `poimen --version` prints: poimen's version, Django's, and whether the matcher's
    hot loops run compiled or in pure Python (filter/speedups.py)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    import django

    from filter import speedups

    try:
        ours = installed_version("poimen")
    except PackageNotFoundError:  # a source tree that was never installed
        ours = "(not installed)"
    return f"poimen {ours}, Django {django.get_version()}, matcher: {speedups.status}"


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv if argv is None else argv
    if argv[1:] == ["--version"]:
        sys.stdout.write(version() + "\n")
        return
    if argv[1:2] == ["mcp"]:
        # The MCP server is a client of the API: no Django. Imported here, as the mcp
        # package is an extra (poimen[mcp]).
        try:
            from poimen.adapters.mcp import main as mcp_main
        except ModuleNotFoundError as missing:
            if missing.name != "mcp" and not (missing.name or "").startswith("mcp."):
                raise
            sys.exit("poimen mcp needs the MCP SDK: pip install 'poimen[mcp]'")
        mcp_main(argv[2:])
        return
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poimen.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line
    from django.db import DatabaseError

    try:
        _ = settings.INSTALLED_APPS  # read now: a setting the environment gets wrong, a line each
    except ImproperlyConfigured as error:
        sys.stderr.write("".join(f"poimen: setting: {line}\n" for line in str(error).splitlines()))
        sys.exit(2)

    try:
        execute_from_command_line(argv)
    except DatabaseError as error:
        # Imported once Django is set up (readiness asks the database), and only on failure.
        from poimen.db.readiness import command_failure

        problem = command_failure(argv[1] if len(argv) > 1 else "", error)
        if problem is None:
            raise  # the schema is in place: a real bug, whose traceback is wanted
        sys.stderr.write(problem + "\n")
        sys.exit(2)
