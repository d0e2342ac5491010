"""The JSON API (/api/v1/), on django-ninja: a module per resource, each endpoint thin, asking
the services and selectors the desk and the commands use. urls.py assembles them.

May import: filter, poimen.decision, poimen.ledger, poimen.models, poimen.readers,
poimen.selectors, poimen.services, poimen.team, poimen.web.
"""
