"""The review guidelines as every reviewer reads them: the version in force, the history."""

from poimen.models import GuidelinesVersion

# How many past versions the page lists (the audit log has every change).
GUIDELINES_HISTORY = 20


def guidelines_current() -> GuidelinesVersion | None:
    return GuidelinesVersion.objects.select_related("author").order_by("-id").first()


def guidelines_history() -> list[GuidelinesVersion]:
    return list(
        GuidelinesVersion.objects.select_related("author")
        .defer("text")
        .order_by("-id")[:GUIDELINES_HISTORY]
    )


def guidelines_version(version_id: int) -> GuidelinesVersion:
    return GuidelinesVersion.objects.select_related("author").get(pk=version_id)
