from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from poimen.services import InputError, artifacts_import


class Command(BaseCommand):
    help = (
        "Register artifacts from a JSONL manifest (the card's format; lines without text still "
        "match) or from a folder of .md/.txt files (name from the front matter's name: or the "
        "file stem, kind from --kind or the folder's name). Idempotent."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="a manifest file or a folder of artifacts")
        parser.add_argument("--kind", help="kind for every artifact (default: the folder's name)")

    def handle(self, *args, path: Path, kind: str | None, **options):
        try:
            result = artifacts_import(path=path, kind=kind)
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        for problem in result.problems:
            self.stderr.write(problem)
        self.stdout.write(
            f"{result.registered} registered, {result.already} already known, "
            f"{result.appended} manifest lines appended, {len(result.problems)} errors"
        )
        if result.problems:
            raise CommandError(f"{len(result.problems)} artifacts not imported", returncode=2)
