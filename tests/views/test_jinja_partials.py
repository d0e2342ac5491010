"""The Jinja2 partials (templates/jinja2, poimen/templatetags/jinja_env.py) show a value as
Django's template engine shows it: escaped, a number localised (not where `unlocalized` is set, as
under `{% localize off %}`), a date in the current time zone and the site's format, an undefined
name or an attribute of one as nothing; and `{% jinja %}` includes one in a Django template."""

import datetime
import re

from django.template import Context, Template, engines
from django.test import override_settings
from hypothesis import given, settings
from hypothesis import strategies as st

JINJA = engines["jinja2"].env

# Django escapes a quote as &#x27; and &quot;, Jinja2 as &#39; and &#34;: the same characters.
SAME_QUOTES = {"&#39;": "&#x27;", "&#34;": "&quot;"}

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
    st.datetimes(timezones=st.just(datetime.UTC)),
    st.dates(),
)


def django_shows(source: str, **names) -> str:
    return Template(source).render(Context(names))


def jinja_shows(source: str, **names) -> str:
    shown = JINJA.from_string(source).render(names)
    return re.sub("|".join(SAME_QUOTES), lambda found: SAME_QUOTES[found.group(0)], shown)


@settings(max_examples=200, deadline=None)
@given(value=values, separator=st.booleans())
def test_a_value_is_shown_as_django_shows_it(value, separator):
    with override_settings(USE_THOUSAND_SEPARATOR=separator, TIME_ZONE="Europe/Paris"):
        assert jinja_shows("{{ v }}", v=value) == django_shows("{{ v }}", v=value)
        unlocalized = "{% load l10n %}{% localize off %}{{ v }}{% endlocalize %}"
        assert jinja_shows("{% set unlocalized = True %}{{ v }}", v=value) == django_shows(
            unlocalized, v=value
        )


def test_an_undefined_name_and_its_attributes_show_as_nothing():
    source = "[{{ missing }}|{{ missing.attribute.deeper }}|{{ none.attribute }}]"
    assert jinja_shows(source, none=None) == django_shows(source, none=None) == "[||]"


def test_a_django_template_includes_a_partial_with_the_names_given():
    refusal = "Not <done> 'here'"
    included = django_shows(
        '{% load jinja %}{% jinja "_refusal.html" refusal=words %}', words=refusal
    )
    alone = engines["jinja2"].get_template("_refusal.html").render({"refusal": refusal})
    assert included == alone and "Not &lt;done&gt;" in included
