from django.core.management.base import BaseCommand, CommandError

from poimen.models import KindPolicy
from poimen.services import InputError, kind_policy_change


class Command(BaseCommand):
    help = (
        "Set what a derived record of a kind gets: redact (its copied passages are cut, the rest "
        "stays evidence) or exclude (the whole record). Applied from the stored matches and their "
        "spans, no text checked again; writes the same policy_changed event as the review desk."
    )

    def add_arguments(self, parser):
        parser.add_argument("kind")
        parser.add_argument(
            "--on-derived", dest="on_derived", required=True, choices=KindPolicy.OnDerived.values
        )
        parser.add_argument("--reason", required=True, help="why, for the audit log")

    def handle(self, *args, kind, on_derived, reason, **options):
        try:
            result = kind_policy_change(kind=kind, on_derived=on_derived, reason=reason)
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        self.stdout.write(
            f"{result.kind}: derived records {result.old} -> {result.new}; "
            f"{result.redacted} newly redacted, {result.excluded} newly excluded, "
            f"{result.kept_by_review} held by a reviewer's verdict"
        )
