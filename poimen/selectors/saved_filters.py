"""A user's saved filters, for the list pages and the page that manages them."""

from django.db.models import QuerySet

from poimen.models import SavedFilter


def saved_filters_of(user, list_name: str = "") -> QuerySet:
    """`user`'s saved filters (of one list when `list_name` is given), by list and name."""
    queryset = SavedFilter.objects.filter(user_id=user.pk)
    return queryset.filter(list_name=list_name) if list_name else queryset


def saved_filter_of(user, saved_id: int) -> SavedFilter:
    """One of `user`'s saved filters; SavedFilter.DoesNotExist for anyone else's."""
    return SavedFilter.objects.get(pk=saved_id, user_id=user.pk)
