from pathlib import Path

from django.core.management.base import BaseCommand

from poimen.services import manifest_export


class Command(BaseCommand):
    help = "Write every stored artifact as a manifest line (JSONL), to --output or stdout."

    def add_arguments(self, parser):
        parser.add_argument("--output", type=Path, help="file to write (default: stdout)")

    def handle(self, *args, output: Path | None, **options):
        if output is None:
            manifest_export(stream=self.stdout)
            return
        with open(output, "w", encoding="utf-8") as stream:
            written = manifest_export(stream=stream)
        self.stderr.write(f"{written} artifacts written to {output}")
