"""On PostgreSQL the event table refuses TRUNCATE, as it refuses UPDATE and DELETE."""

import pytest
from django.db import DatabaseError, connection, transaction

from poimen.models import Event

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the trigger is PostgreSQL's (SQLite has none)"
)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "statement",
    [
        "TRUNCATE poimen_event",
        "TRUNCATE poimen_event CASCADE",
        "TRUNCATE poimen_record, poimen_event CASCADE",
    ],
)
def test_truncate_of_the_event_table_is_refused(statement):
    Event.objects.create(type=Event.Type.FILTER_DISABLED, data={"source": "tests"})
    with connection.cursor() as cursor:
        # The row's deferred foreign-key checks would otherwise make PostgreSQL refuse the
        # TRUNCATE for a reason of its own, inside the test's transaction.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with pytest.raises(DatabaseError, match="append-only: TRUNCATE refused"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)
    assert Event.objects.count() == 1
