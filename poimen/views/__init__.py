"""The review desk's pages, a module per page or job. Thin: parse the request, call a selector
or a service, render.

Every page is one template. Its fragments are inline partials of that template; when htmx asks
for one (the element it targets has the partial's name as id) the view renders just that
partial, otherwise the whole page, so every URL also works as a full page load.

May import: poimen.decision, poimen.forms, poimen.models, poimen.selectors, poimen.services,
poimen.team, poimen.web.
"""
