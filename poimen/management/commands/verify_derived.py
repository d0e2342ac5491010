from django.core.management.base import BaseCommand, CommandError

from poimen.decision.artifact_index import ArtifactUnusable, stale_artifacts
from poimen.services import derived_verify


class Command(BaseCommand):
    help = (
        "Recompute from the text what reaches evidence (the text of evidence records, the "
        "evidence text of redacted ones): none of it may match an artifact above its kind's "
        "threshold, and no redaction may have left a passage of min_shared shingles of an "
        "artifact it was cut for (`mem verify --derived-filter` of docs/card.md). Exit 1 and list "
        "offenders if any."
    )

    def handle(self, *args, **options):
        try:
            result = derived_verify()
        except ArtifactUnusable as error:
            raise CommandError(str(error), returncode=2) from None
        if stale := stale_artifacts():
            # checked against them all the same, a little less closely
            self.stderr.write(self.style.WARNING(stale.warning()))
        for offender in result.offenders:
            self.stdout.write(str(offender))
        released = (
            f"; {result.released_by_review} released by reviewers as false positives"
            if result.released_by_review
            else ""
        )
        self.stdout.write(
            f"{result.checked} evidence and redacted records checked, "
            f"{len(result.offenders)} still derived or leaking{released}"
        )
        if result.offenders:
            raise CommandError(
                f"{len(result.offenders)} records give evidence that copies artifacts", returncode=1
            )
