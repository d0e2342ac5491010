"""The Jinja2 environment of the templates under templates/jinja2 (settings.TEMPLATES, the
"jinja2" backend): the list row and the controls it shares with the record page, review mode and
second review (verdict buttons, note form, the note reason "other" asks, the shadow badge, a
refusal). They render through Jinja2 because a list page is fifty rows of them, which Django's
template engine takes about twice as long to render (bench/results/).

The helpers are the Django templates' own (desk.py, verdicts.py), so each rule keeps one home;
values are shown as Django shows them: autoescaped, dates in the current time zone, numbers
localised (but where a template sets `unlocalized`, as under `{% localize off %}`), undefined
names and attributes of nothing empty (tests/views/test_jinja_partials.py)."""

from django.template.defaultfilters import truncatechars
from django.templatetags.static import static
from django.urls import reverse
from django.utils.formats import localize
from django.utils.timezone import template_localtime
from jinja2 import ChainableUndefined, Environment, pass_context

from poimen.templatetags import desk, verdicts


@pass_context
def _shown(context, value):
    """A value as Django's template engine prints it (render_value_in_context): localised,
    a date in local time; with `unlocalized` set, as under {% localize off %} (a date still in
    the site's format)."""
    if isinstance(value, str) or value is None:
        return value
    return localize(
        template_localtime(value), use_l10n=False if context.get("unlocalized") else None
    )


def _when(value, fmt: str = "Y-m-d H:i"):
    # Django converts a filter's date argument to local time itself (expects_localtime).
    return desk.when(template_localtime(value), fmt)


def environment(**options) -> Environment:
    # Django's engine shows an undefined name, or an attribute of one, as nothing; the backend
    # would pass Undefined (DebugUndefined under DEBUG), which fails on the attribute.
    options["undefined"] = ChainableUndefined
    # A template ends with its newline, as under Django's engine.
    env = Environment(keep_trailing_newline=True, finalize=_shown, **options)
    env.globals.update(
        url=lambda name, *args, **kwargs: reverse(name, args=args, kwargs=kwargs or None),
        static=static,
        href=desk.href,
        search_hit=desk.search_hit,
        overlap_in_kind=desk.overlap_in_kind,
        shadow_meaning=desk.shadow_meaning,
    )
    env.filters.update(
        when=_when,
        verdict_label=desk.verdict_label,
        verdicts_offered=verdicts.verdicts_offered,
        note_needed=verdicts.note_needed,
        undo_refusal=verdicts.undo_refusal,
        truncatechars=truncatechars,
    )
    return env
