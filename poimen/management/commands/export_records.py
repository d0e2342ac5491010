from pathlib import Path

from django.core.management.base import BaseCommand

from poimen.management.exports import export_to
from poimen.services import records_export


class Command(BaseCommand):
    help = (
        'Every record\'s decision as JSONL: {"id", "source", "status", "derived", "matched", '
        '"kind", "overlap"}, to --output or stdout.'
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", type=Path, help="file to write (default: stdout)")

    def handle(self, *args, output: Path | None, **options):
        export_to(self, output, lambda stream: records_export(stream=stream), "records")
