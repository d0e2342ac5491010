from pathlib import Path

from django.core.management.base import BaseCommand

from poimen.management.exports import export_to
from poimen.services import EXPORT_FIELD_NAMES, EXPORT_FORMATS, records_export


class Command(BaseCommand):
    help = (
        "Every record and its decision, newest first, as JSONL (or CSV) to --output or stdout, "
        f"the desk's export fields: {', '.join(EXPORT_FIELD_NAMES)}; with --with-text, text too."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", type=Path, help="file to write (default: stdout)")
        parser.add_argument(
            "--format", dest="file_format", choices=list(EXPORT_FORMATS), default="jsonl"
        )
        parser.add_argument(
            "--with-text", action="store_true", help="each record's text too (a last field)"
        )

    def handle(self, *args, output: Path | None, file_format: str, with_text: bool, **options):
        export_to(
            self,
            output,
            lambda stream: records_export(
                stream=stream, file_format=file_format, with_text=with_text
            ),
            "records",
        )
