"""Template filters and tags for the desk's templates: small inline pieces only, every control's
markup lives in a template partial. Also the Jinja2 environment of templates/jinja2 (jinja_env)
and the tag that includes one of those partials in a Django template (jinja).

May import: poimen.models, poimen.selectors, poimen.services, poimen.team.
"""
