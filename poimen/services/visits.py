"""When a user last opened the overview, so that it opens on what changed since."""

from datetime import datetime

from django.utils import timezone

from poimen.models import OverviewVisit


def overview_seen(*, user) -> datetime | None:
    """Note that `user` opens the overview now; return when they opened it before (None the
    first time). Not an event: a page view, not a change to the data."""
    now = timezone.now()
    visit, created = OverviewVisit.objects.get_or_create(user=user, defaults={"seen_at": now})
    if created:
        return None
    before = visit.seen_at
    OverviewVisit.objects.filter(pk=visit.pk).update(seen_at=now)
    return before
