import json

from django.core.management.base import BaseCommand

from poimen.services.audit import audit_checkpoint


class Command(BaseCommand):
    help = (
        "Write the audit log's head (events, last id, hash, time) as JSON, to keep somewhere "
        "the database's users cannot write: verify_audit --checkpoint FILE then finds events "
        "removed from the end, and a log rewritten since."
    )

    def add_arguments(self, parser):
        parser.add_argument("--output", required=True, help="the file to write ('-': stdout)")

    def handle(self, *args, output, **options):
        text = json.dumps(audit_checkpoint(), indent=1) + "\n"
        if output == "-":
            self.stdout.write(text, ending="")
            return
        with open(output, "w", encoding="utf-8") as stream:
            stream.write(text)
        self.stdout.write(f"checkpoint written to {output}")
