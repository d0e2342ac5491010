"""How the commands that decide records end: with verify_derived on what they moved, or with
the line that says how to run it (where that would mean checking everything again)."""

from django.core.management.base import CommandError

from poimen.services import derived_verify

VERIFY_HINT = "To check that nothing copying an artifact reaches evidence: manage.py verify_derived"


def verify_moved(command, record_ids: list[int], *, scope: str) -> None:
    """verify_derived on the records a change moved; its offenders listed, exit 1 if any."""
    if not record_ids:
        command.stdout.write("verify_derived: no record moved, nothing to check")
        return
    result = derived_verify(record_ids=record_ids, scope=scope)
    for offender in result.offenders:
        command.stdout.write(str(offender))
    command.stdout.write(
        f"verify_derived on the {len(record_ids)} records moved: {result.checked} reach "
        f"evidence, {len(result.offenders)} still derived or leaking"
    )
    if result.offenders:
        raise CommandError(
            f"{len(result.offenders)} records give evidence that copies artifacts", returncode=1
        )
