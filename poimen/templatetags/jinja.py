"""A Jinja2 partial (templates/jinja2, jinja_env) included in a Django template, so that a control
has one template for every screen that shows it: `{% load jinja %}`, then
`{% jinja "partials/note_form.html" review=record.review row=False %}`, as `{% include … with %}`
would, the partial seeing the whole context and the names given."""

from django import template
from django.template import engines
from django.template.defaulttags import CsrfTokenNode
from django.utils.safestring import mark_safe

register = template.Library()


@register.simple_tag(takes_context=True)
def jinja(context, name: str, **names):
    partial = engines["jinja2"].get_template(name).template
    values = context.flatten()
    # The CSRF field, as the Jinja2 backend gives a template it renders itself, but the page's
    # own token ({% csrf_token %}'s): the backend's lazy csrf_input masks a new one at each form.
    values["csrf_input"] = CsrfTokenNode().render(context)
    values.update(names)
    return mark_safe(partial.render(values))  # autoescaped by Jinja2
