"""What the export commands share: a file written whole or not at all, or stdout."""

import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from django.core.management.base import BaseCommand, CommandError


def export_to(command: BaseCommand, output: Path | None, export: Callable[[TextIO], int], noun):
    """Run `export(stream)` into `output` (written to a temporary file beside it, then moved
    into place, so a failed export never leaves half a file) or into stdout."""
    if output is None:
        try:
            export(command.stdout)
            command.stdout.flush()
        except BrokenPipeError:
            # The reader (`| head`) has gone: stop quietly, as other command-line tools do.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return
    try:
        handle, temporary = tempfile.mkstemp(
            dir=output.parent, prefix=f".{output.name}.", suffix=".tmp"
        )
    except OSError as error:
        raise CommandError(f"{output}: {error.strerror}", returncode=2) from None
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)  # as open() would have made it, not mkstemp's 0600
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            written = export(stream)
        os.replace(temporary, output)
    except OSError as error:
        os.unlink(temporary)
        raise CommandError(f"{output}: {error.strerror}", returncode=2) from None
    except BaseException:
        os.unlink(temporary)
        raise
    command.stderr.write(f"{written} {noun} written to {output}")
