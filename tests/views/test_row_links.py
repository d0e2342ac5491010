"""A list row's links come from one reversed URL shape each (poimen.views.links): they must be
the URLs Django reverses for the row, and the forms' hidden fields must carry what it posts."""

from django.urls import reverse

from poimen.views.links import reason_keys, rows_linked


def test_row_links_are_the_reversed_urls(make_artifact, make_record):
    artifact = make_artifact()
    judged_none = make_record(status="excluded", best_overlap=0.9, best_artifact=artifact)
    unmatched = make_record(status="excluded")

    page = rows_linked([judged_none, unmatched], "exclusions", "kind=skill&sort=time")

    links = judged_none.links
    assert links.id == str(judged_none.pk)
    assert (
        links.open
        == reverse("record", args=[judged_none.pk]) + "?list=exclusions&kind=skill&sort=time"
    )
    assert links.artifact == reverse("artifact", args=[artifact.pk])
    assert links.review == reverse("record_review", args=[judged_none.pk])
    assert links.undo == reverse("record_undo", args=[judged_none.pk])
    assert links.note == reverse("record_note", args=[judged_none.pk])
    assert links.seen == "0"
    assert unmatched.links.artifact == ""
    assert page["back_to_list"] == reverse("exclusions") + "?kind=skill&sort=time"
    assert 'name="next" value="/exclusions/?kind=skill&amp;sort=time"' in links.hidden
    assert judged_none.offered == ["confirmed", "false_positive"]


def test_reason_keys_follow_the_reasons_order():
    keys = reason_keys()
    assert [key for _, _, key, _ in keys] == [str(n) for n in range(1, len(keys) + 1)]
    assert keys[-1][0] == "other"
    assert all(definition for *_, definition in keys)  # each reason says what it means


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
