"""The operators' commands (`python manage.py …`, `poimen …`): each thin, parsing its arguments
and asking a service; exports and verifying are the two helpers several commands share.

May import: poimen.allocator, poimen.db, poimen.decision, poimen.ledger, poimen.models,
poimen.readers, poimen.selectors, poimen.services, poimen.team.
"""
