"""Saved filters: a user's named filter sets of a list; save, rename, delete.

Preferences, not review actions: they change no record, verdict or policy, so they leave no
event (the audit log says what decided a record's fate, and a reviewer's bookmarks never do).
Each user sees and changes only their own."""

from urllib.parse import parse_qsl, urlencode

from django.db import IntegrityError, transaction

from poimen.models import SavedFilter
from poimen.services.common import InputError

NAME_MAX_LENGTH = SavedFilter._meta.get_field("name").max_length


def _name(name: str) -> str:
    name = " ".join(name.split())
    if not name or len(name) > NAME_MAX_LENGTH:
        raise InputError(f"a saved filter needs a name of 1 to {NAME_MAX_LENGTH} characters")
    return name


def _list_name(list_name: str) -> str:
    if list_name not in SavedFilter.List.values:
        lists = ", ".join(SavedFilter.List.values)
        raise InputError(f"list {list_name!r} is not one of {lists}")
    return list_name


def saved_filter_query(query: str) -> str:
    """A query string as it is saved: empty values and paging left out, in a stable order."""
    pairs = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if v and k != "after"]
    return urlencode(sorted(pairs))


def _taken(user, list_name: str, name: str) -> InputError:
    label = SavedFilter.List(list_name).label.lower()
    return InputError(f"you already have a saved filter named “{name}” on {label}")


def saved_filter_save(*, user, list_name: str, name: str, query: str) -> SavedFilter:
    """Save the filters of `list_name` (its query string) for `user` under `name`."""
    name, list_name = _name(name), _list_name(list_name)
    try:
        with transaction.atomic():
            return SavedFilter.objects.create(
                user=user, list_name=list_name, name=name, query=saved_filter_query(query)
            )
    except IntegrityError:
        raise _taken(user, list_name, name) from None


def saved_filter_rename(*, saved: SavedFilter, user, name: str) -> SavedFilter:
    """Give one of `user`'s saved filters another name."""
    if saved.user_id != user.pk:
        raise InputError("that saved filter is someone else's")
    name = _name(name)
    if name == saved.name:
        return saved
    saved.name = name
    try:
        with transaction.atomic():
            saved.save(update_fields=["name", "updated_at"])
    except IntegrityError:
        raise _taken(user, saved.list_name, name) from None
    return saved


def saved_filter_delete(*, saved: SavedFilter, user) -> None:
    """Delete one of `user`'s saved filters."""
    if saved.user_id != user.pk:
        raise InputError("that saved filter is someone else's")
    saved.delete()
