from django.core.management.base import BaseCommand, CommandError

from poimen.services.artifacts import manifest_differences
from poimen.services.audit import audit_verify, checkpoint_read
from poimen.services.common import InputError


class Command(BaseCommand):
    help = (
        "Recompute the audit log's hash chain: exit 1 naming the first event that does not "
        "fit (forged, or an event before it removed). With --checkpoint FILE (written by "
        "audit_checkpoint and kept elsewhere), also find events removed from the end. Records "
        "the result as an audit_verified event."
    )

    def add_arguments(self, parser):
        parser.add_argument("--checkpoint", help="a file audit_checkpoint --output wrote")

    def handle(self, *args, checkpoint=None, **options):
        try:
            kept = checkpoint_read(checkpoint) if checkpoint else None
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        result = audit_verify(checkpoint=kept)
        for problem in result.problems:
            self.stdout.write(problem)
        if not result.ok:
            raise CommandError(f"the audit log does not prove itself: {result.problems[0]}")
        against = " and the checkpoint" if kept else ""
        self.stdout.write(f"{result.events} events, the chain{against} intact")
        differences = manifest_differences()
        for line in differences.described():
            self.stdout.write(line)
        if differences:
            raise CommandError(
                f"the manifest and the database differ ({len(differences.described())}); "
                "`poimen sync_manifest` mends them"
            )
