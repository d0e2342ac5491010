"""Template filters and tags for the desk's templates: small inline pieces only, every control's
markup lives in a template partial.

May import: poimen.models, poimen.selectors, poimen.services, poimen.team.
"""
