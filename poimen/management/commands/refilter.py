from django.core.management.base import BaseCommand, CommandError

from poimen.decision.artifact_index import ArtifactUnusable, stale_artifacts
from poimen.management.verifying import VERIFY_HINT
from poimen.services import InputError, records_refilter, records_refilter_queued


class Command(BaseCommand):
    help = (
        "Check stored records again after artifacts were added: matches replaced, each status "
        "change an event; a reviewer's verdict is never overridden."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--kind",
            help="the kind the refilter is run for (its event names it); every record is "
            "checked against every artifact all the same: one decision reads them all",
        )
        parser.add_argument("--batch-size", type=int, help="records a transaction (default 1000)")
        parser.add_argument(
            "--queue",
            action="store_true",
            help="send the batches to `celery -A poimen worker` processes (CELERY_BROKER_URL)",
        )

    def handle(self, *args, kind, batch_size, queue, **options):
        try:
            if queue:
                result = records_refilter_queued(
                    kind=kind, batch_size=batch_size, on_waiting=self.stderr.write
                )
            else:
                result = records_refilter(kind=kind, batch_size=batch_size)
        except (InputError, ArtifactUnusable) as error:
            raise CommandError(str(error), returncode=2) from None
        if stale := stale_artifacts():
            self.stderr.write(self.style.WARNING(stale.warning()))
        self.stdout.write(
            f"checked {result.checked}: {result.excluded} newly excluded, "
            f"{result.redacted} newly redacted, {result.released} released, "
            f"{result.kept_by_review} held by a reviewer's verdict, "
            f"{result.matches} matches stored"
        )
        self.stdout.write(VERIFY_HINT)
