from django.core.management.base import BaseCommand, CommandError

from poimen.services import InputError, threshold_change


class Command(BaseCommand):
    help = (
        "Set a kind's threshold and apply it from the stored matches (no re-shingling); writes "
        "the same ThresholdChange and threshold_changed event as the review desk."
    )

    def add_arguments(self, parser):
        parser.add_argument("kind")
        parser.add_argument("value", type=float, help="between the reporting floor and 1")
        parser.add_argument("--reason", required=True, help="why, for the audit log")

    def handle(self, *args, kind, value, reason, **options):
        try:
            result = threshold_change(kind=kind, value=value, reason=reason)
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        self.stdout.write(
            f"{result.kind}: threshold {result.old:g} -> {result.new:g}; "
            f"{result.excluded} newly excluded, {result.redacted} newly redacted, "
            f"{result.released} released, "
            f"{result.kept_by_review} held by a reviewer's verdict"
        )
