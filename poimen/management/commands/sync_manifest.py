from django.core.management.base import BaseCommand, CommandError

from poimen.ledger.manifest import ManifestUnwritable
from poimen.services.artifacts import manifest_differences, manifest_mend


class Command(BaseCommand):
    help = (
        "Name every difference between the artifact manifest and the stored artifacts, and "
        "mend them: a stored artifact's missing line is appended, a line's artifact not "
        "stored is registered (with its event). --dry-run names them only (exit 1 if any)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="name them, change nothing")

    def handle(self, *args, dry_run=False, **options):
        try:
            differences = manifest_differences() if dry_run else manifest_mend()
        except ManifestUnwritable as error:
            raise CommandError(str(error), returncode=2) from None
        for line in differences.described():
            self.stdout.write(line)
        for problem in differences.broken:
            self.stderr.write(problem)
        count = len(differences.described())
        if dry_run:
            if count:
                raise CommandError(f"{count} differences; run sync_manifest to mend them")
            self.stdout.write("the manifest and the database agree")
        else:
            self.stdout.write(f"{count} differences mended" if count else "nothing to mend")
