"""Which records are stored already, by their key, read the way each database answers fastest."""

from django.db import connection

from poimen.models import Record


def existing_record_keys(keys: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Which (source, external_id) pairs are stored already."""
    if not keys:
        return set()
    if connection.vendor != "postgresql":
        sources = {source for source, _ in keys}
        external_ids = {external_id for _, external_id in keys}
        stored = Record.objects.filter(source__in=sources, external_id__in=external_ids)
        return set(stored.values_list("source", "external_id")) & keys
    # A join on the pairs keeps PostgreSQL on the unique index for both columns; with IN lists
    # it scans every row of the source once a batch holds many ids (quadratic over a run).
    sources, external_ids = zip(*keys, strict=True)
    table = connection.ops.quote_name(Record._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT r.source, r.external_id FROM unnest(%s::text[], %s::text[]) AS k(s, e)"
            f" JOIN {table} r ON r.source = k.s AND r.external_id = k.e",
            [list(sources), list(external_ids)],
        )
        return set(cursor.fetchall())
