from pathlib import Path

from django.core.management.base import BaseCommand

from poimen.services import records_export


class Command(BaseCommand):
    help = (
        'Every record\'s decision as JSONL: {"id", "source", "status", "derived", "matched", '
        '"kind", "overlap"}, to --output or stdout.'
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", type=Path, help="file to write (default: stdout)")

    def handle(self, *args, output: Path | None, **options):
        if output is None:
            records_export(stream=self.stdout)
            return
        with open(output, "w", encoding="utf-8") as stream:
            written = records_export(stream=stream)
        self.stderr.write(f"{written} records written to {output}")
