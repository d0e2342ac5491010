"""`check --deploy`'s own warnings: what Django's checks cannot know of poimen's deployment."""

from django.core.checks import Tags, Warning, register
from django.db import DatabaseError, connection

# Whether the role this process connects as can rewrite the audit log: it owns the event
# table (so may disable or drop its trigger), is a superuser, or may update or delete events.
_EVENT_POWERS = """
SELECT t.tableowner = current_user, r.rolsuper,
       has_table_privilege('poimen_event', 'UPDATE, DELETE, TRUNCATE')
FROM pg_tables t, pg_roles r
WHERE t.tablename = 'poimen_event' AND t.schemaname = current_schema()
  AND r.rolname = current_user
"""


@register(Tags.security, deploy=True)
def audit_log_role(app_configs, **kwargs) -> list[Warning]:
    if connection.vendor != "postgresql":
        return []
    try:
        with connection.cursor() as cursor:
            cursor.execute(_EVENT_POWERS)
            row = cursor.fetchone()
    except DatabaseError:
        return []  # not reachable: the server's start says so, in its own words
    if row is None:
        return []  # not migrated yet
    owns, superuser, may_rewrite = row
    powers = [
        what
        for what, held in (
            ("owns the event table (it can disable or drop the append-only trigger)", owns),
            ("is a superuser", superuser),
            ("may update, delete or truncate events", may_rewrite),
        )
        if held
    ]
    if not powers:
        return []
    return [
        Warning(
            f"the database role {connection.settings_dict['USER']!r} "
            + "; ".join(powers)
            + ": whoever runs as it can rewrite the audit log",
            hint="run the server and workers as a role that may only insert and read events, "
            "and migrate as the owner (docs/deploy.md, section 2)",
            id="poimen.W001",
        )
    ]
