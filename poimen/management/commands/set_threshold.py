from django.core.management.base import BaseCommand, CommandError

from poimen.management.verifying import verify_moved
from poimen.services import InputError, threshold_change


class Command(BaseCommand):
    help = (
        "Set a kind's threshold and apply it from the stored matches (no re-shingling); writes "
        "the same ThresholdChange and threshold_changed event as the review desk, and checks "
        "the records it moved with verify_derived. --dry-run prints what would move (the same "
        "decisions) and changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("kind")
        parser.add_argument("value", type=float, help="between the reporting floor and 1")
        parser.add_argument("--reason", help="why, for the audit log (required unless --dry-run)")
        parser.add_argument(
            "--dry-run", action="store_true", help="say what would move; change nothing"
        )

    def handle(self, *args, kind, value, reason, dry_run, **options):
        try:
            result = threshold_change(kind=kind, value=value, reason=reason, dry_run=dry_run)
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        said = "would move" if dry_run else "moved"
        self.stdout.write(
            f"{result.kind}: threshold {result.old:g} -> {result.new:g}"
            f"{' (dry run: nothing changed)' if dry_run else ''}; {said}: {result.moves_said()}; "
            f"{result.kept_by_review} held by a reviewer's verdict"
        )
        if not dry_run:
            verify_moved(self, result.changed, scope=f"threshold {kind} {value:g}")
