"""Database plumbing with no rule of poimen's in it: the DATABASE_URL parser, COPY on PostgreSQL,
keyset paging, the query planner's settings for whole-table scans, and whether the database is
there and migrated.

May import: nothing.
"""
