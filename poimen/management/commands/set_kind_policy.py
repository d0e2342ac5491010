from django.core.management.base import BaseCommand, CommandError

from poimen.management.verifying import verify_moved
from poimen.models import KindPolicy
from poimen.services import InputError, kind_policy_change


class Command(BaseCommand):
    help = (
        "Set what a derived record of a kind gets: redact (its copied passages are cut, the rest "
        "stays evidence) or exclude (the whole record), and from how many words a copied "
        "passage is cut whatever the record's overlap (--paste-words), and how many shingles a "
        "match must share (--min-shared). Applied from the stored matches and their spans; a "
        "new --min-shared checks again from their text the records it could move. "
        "Writes the same policy_changed event as the review desk, and checks the records it "
        "moved with verify_derived. --dry-run prints what would move (the same decisions) and "
        "changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("kind")
        parser.add_argument("--on-derived", dest="on_derived", choices=KindPolicy.OnDerived.values)
        parser.add_argument(
            "--paste-words", dest="paste_words", help="words from which a copied passage is cut"
        )
        parser.add_argument(
            "--min-shared", dest="min_shared", help="shingles a match must share to count"
        )
        parser.add_argument("--reason", help="why, for the audit log (required unless --dry-run)")
        parser.add_argument(
            "--dry-run", action="store_true", help="say what would move; change nothing"
        )

    def handle(self, *args, kind, on_derived, paste_words, min_shared, reason, dry_run, **options):
        try:
            result = kind_policy_change(
                kind=kind,
                on_derived=on_derived,
                paste_words=paste_words,
                min_shared=min_shared,
                reason=reason,
                dry_run=dry_run,
            )
        except InputError as error:
            raise CommandError(str(error), returncode=2) from None
        said = "would move" if dry_run else "moved"
        self.stdout.write(
            f"{result.kind}: {result.old} -> {result.new}"
            f"{' (dry run: nothing changed)' if dry_run else ''}; {said}: {result.moves_said()}; "
            f"{result.kept_by_review} held by a reviewer's verdict"
            + (f"; {result.checked} checked again from their text" if result.checked else "")
        )
        if not dry_run:
            verify_moved(self, result.changed, scope=f"policy {kind}")
