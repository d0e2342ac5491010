"""A list row (templates/jinja2/partials/list_row.html): every piece of text in it is escaped,
and the row a verdict renders alone is the row the list shows."""

import re

from django.contrib.auth.models import User
from django.urls import reverse

from poimen.services import review_record

HTMX = {"HTTP_HX_REQUEST": "true"}
MARKUP = "<script>alert('row')</script>"
# Django escapes a quote as &#x27;, Jinja2 (the row's engine) as &#39;: the same character.
ESCAPED = re.compile(r"&lt;script&gt;alert\((&#x27;|&#39;)row(&#x27;|&#39;)\)&lt;/script&gt;")


def row_of(html: str, record) -> str:
    found = re.search(rf'<tr data-row id="row-{record.pk}">.*?</tr>', html, re.S)
    assert found, f"no row of #{record.pk}"
    return found.group(0)


def test_every_text_of_a_row_is_escaped(logged_in, desk_data, make_record, reviewer):
    artifact = desk_data["verbatim"].best_artifact
    artifact.name = f"name {MARKUP}"
    artifact.save(update_fields=["name"])
    record = make_record(
        text=f"text {MARKUP}",
        source=f"source {MARKUP}",
        role=f"role {MARKUP}",
        status="excluded",
        derived=True,
        best_overlap=0.97,
        best_artifact=artifact,
    )
    judge = User.objects.create_user(f"judge {MARKUP}")
    judge.groups.add(*reviewer.groups.all())
    review_record(
        record=record, verdict="false_positive", reason="other", note=f"note {MARKUP}", actor=judge
    )
    html = logged_in.get(reverse("exclusions") + "?verdict=false_positive").content.decode()
    row = row_of(html, record)
    assert "<script>" not in row
    # text, source, role, artifact name, reviewer, the note shown, the note field, and the
    # reviewer named again where a colleague's verdict has no undo
    assert len(ESCAPED.findall(row)) == 8, row


def test_a_row_rendered_alone_is_the_row_of_the_list(logged_in, desk_data, reviewer):
    record = desk_data["verbatim"]
    response = logged_in.post(
        reverse("row_review", args=["exclusions", record.pk]),
        {"verdict": "confirmed", "seen": 0, "next": reverse("exclusions")},
        **HTMX,
    )
    alone = response.content.decode()
    listed = row_of(logged_in.get(reverse("exclusions")).content.decode(), record)
    token = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')
    assert token.sub("", alone).strip() == token.sub("", listed).strip()
    assert 'class="judge-cell"' in alone and "Undo <kbd>u</kbd>" in alone


def test_artifact_name_completions_are_every_name_escaped(logged_in, make_artifact):
    """The filter's datalist holds each artifact name once, as text: a name is untrusted."""
    make_artifact(name="release-notes")
    make_artifact(name='a"><script>alert(1)</script>', text="A skill of its own words. " * 9)
    page = logged_in.get(reverse("exclusions")).content.decode()
    datalist = page.split('<datalist id="artifact-names">')[1].split("</datalist>")[0]
    assert datalist == (
        '<option value="a&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">'
        '<option value="release-notes">'
    )


def test_each_screen_posts_to_its_own_urls(logged_in, desk_data, reviewer):
    """A row, review mode and the record page each post to their own URLs: no hidden field
    tells one view which screen it serves."""
    record = desk_data["verbatim"]
    review_record(record=record, verdict="confirmed", actor=reviewer)
    pages = {
        "row": logged_in.get(reverse("exclusions")).content.decode(),
        "review": logged_in.get(reverse("review") + "?list=exclusions", **HTMX).content.decode(),
        "record": logged_in.get(reverse("record", args=[record.pk])).content.decode(),
    }
    for page in pages.values():
        assert 'name="row"' not in page and 'name="mode"' not in page
    assert f'action="{reverse("row_undo", args=["exclusions", record.pk])}"' in pages["row"]
    assert f'action="{reverse("row_note", args=["exclusions", record.pk])}"' in pages["row"]
    shown = re.search(r'action="/review/(\d+)/verdict/"', pages["review"])
    assert shown, "review mode's verdict form posts to review_verdict"
    assert f'action="{reverse("record_undo", args=[record.pk])}"' in pages["record"]
    assert f'action="{reverse("record_note", args=[record.pk])}"' in pages["record"]
