"""The review guidelines: an admin saves a new version; the change is an event."""

from django.db import transaction

from poimen.models import Event, GuidelinesVersion
from poimen.services.common import InputError

GUIDELINES_MAX_CHARACTERS = 50_000


def guidelines_edit(*, actor, text: str, note: str = "") -> GuidelinesVersion:
    """Save `text` as the guidelines in force (a new version) and log who changed them."""
    text = text.strip().replace("\r\n", "\n")
    note = " ".join(note.split())
    if not text:
        raise InputError("the guidelines need some text")
    if len(text) > GUIDELINES_MAX_CHARACTERS:
        raise InputError(
            f"the guidelines hold at most {GUIDELINES_MAX_CHARACTERS:,} characters, "
            f"not {len(text):,}"
        )
    note_max = GuidelinesVersion._meta.get_field("note").max_length
    if len(note) > note_max:
        raise InputError(f"a note on a change holds at most {note_max} characters")
    with transaction.atomic():
        current = GuidelinesVersion.objects.select_for_update().order_by("-id").first()
        if current is not None and current.text == text:
            raise InputError("the guidelines are unchanged: nothing saved")
        version = GuidelinesVersion.objects.create(text=text, author=actor, note=note)
        Event.objects.log(
            Event.Type.GUIDELINES_CHANGED,
            actor=actor,
            data={
                "version": version.pk,
                "characters": len(text),
                **({"note": note} if note else {}),
            },
        )
    return version
