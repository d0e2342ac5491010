"""What poimen writes down that must prove itself: the audit log's hash chain (what an event's hash
covers, the trigger that seals it on PostgreSQL, the walk that verifies it) and the append-only
JSONL manifest of registered artifacts.

May import: filter.
"""
