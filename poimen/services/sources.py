"""Shadow mode by source: a memory system (the `source` its records carry) is put in shadow
mode or back to enforcing, and a server process knows which sources are in it."""

import time

from django.conf import settings
from django.db import transaction

from poimen.models import Event, ShadowSource
from poimen.services.common import InputError
from poimen.services.tokens import MODE_ENFORCE, MODE_SHADOW

# The sources in shadow mode as this process read them, and time.monotonic() when: read again
# after POIMEN_API_TOKEN_CACHE_SECONDS, as a token is (a query on every check would cost more
# than the check).
_read: list = [frozenset(), None]


def shadow_sources() -> frozenset[str]:
    """The sources in shadow mode now (as of POIMEN_API_TOKEN_CACHE_SECONDS ago at most, in
    a process that did not change them itself)."""
    sources, read_at = _read
    now = time.monotonic()
    if read_at is None or now - read_at >= settings.POIMEN_API_TOKEN_CACHE_SECONDS:
        sources = frozenset(ShadowSource.objects.values_list("source", flat=True))
        _read[:] = [sources, now]
    return sources


def shadow_sources_forget() -> None:
    """Read the sources again on the next check (a change does; tests do)."""
    _read[:] = [frozenset(), None]


def source_mode(*, source: str, shadow: bool, actor=None) -> bool:
    """Put `source` in shadow mode (its records decided and recorded, never withheld) or
    back to enforcing, with a `source_mode_changed` event. Whether it changed."""
    source = source.strip()
    if not 0 < len(source) <= ShadowSource._meta.get_field("source").max_length:
        raise InputError("a source is 1 to 255 characters, as records carry it")
    with transaction.atomic():
        held = ShadowSource.objects.select_for_update().filter(source=source)
        if held.exists() == shadow:
            return False
        if shadow:
            ShadowSource.objects.create(source=source, set_by=actor)
        else:
            held.delete()
        Event.objects.log(
            Event.Type.SOURCE_MODE_CHANGED,
            actor=actor,
            data={
                "source": source,
                "old": MODE_ENFORCE if shadow else MODE_SHADOW,
                "new": MODE_SHADOW if shadow else MODE_ENFORCE,
            },
        )
    shadow_sources_forget()
    return True
