"""Walking a large queryset in pages by primary key."""


def keyset_pages(queryset, size: int):
    """Keyset pages by pk: steady cost per page however far in, and safe while rows change."""
    last = 0
    while True:
        page = list(queryset.filter(pk__gt=last).order_by("pk")[:size])
        if not page:
            return
        yield page
        last = page[-1].pk
