"""The guidelines page: every reviewer reads it (with the reasons' definitions, from their one
home), admins alone edit it; a past version opens by its number."""

from django.urls import reverse

from poimen.models import Event, GuidelinesVersion
from poimen.models.reviews import REASON_DEFINITIONS
from poimen.services import guidelines_edit


def test_a_reviewer_reads_the_guidelines_and_every_reason_definition(client, reviewer, tuner):
    guidelines_edit(actor=tuner, text="Confirm copies of skills.\n\nRelease <quotes>.")
    client.force_login(reviewer)
    html = client.get(reverse("guidelines")).content.decode()
    assert "Confirm copies of skills." in html and "Release &lt;quotes&gt;." in html
    for definition in REASON_DEFINITIONS.values():
        assert str(definition).replace("'", "&#x27;").replace('"', "&quot;") in html
    assert reverse("guidelines_edit") not in html.split("</nav>", 1)[1]
    assert f'href="{reverse("guidelines")}"' in html  # the desk's navigation links it


def test_the_page_as_an_htmx_fragment(client, reviewer):
    client.force_login(reviewer)
    html = client.get(reverse("guidelines"), headers={"HX-Request": "true"}).content.decode()
    assert "No guidelines written yet." in html and "<nav" not in html


def test_a_reviewer_may_not_edit(client, reviewer):
    client.force_login(reviewer)
    assert client.get(reverse("guidelines_edit")).status_code == 403
    assert client.post(reverse("guidelines_edit"), {"text": "Mine"}).status_code == 403
    assert not GuidelinesVersion.objects.exists()


def test_an_admin_saves_a_version_seen_in_the_history(client, tuner):
    client.force_login(tuner)
    response = client.post(reverse("guidelines_edit"), {"text": "First.", "note": "start"})
    assert response.status_code == 302
    client.post(reverse("guidelines_edit"), {"text": "Second."})
    first, second = GuidelinesVersion.objects.order_by("id")
    html = client.get(reverse("guidelines")).content.decode()
    assert "Second." in html and f"?version={first.pk}" in html and "“start”" in html
    old = client.get(reverse("guidelines"), {"version": first.pk}).content.decode()
    assert "First." in old and "replaced" in old
    assert Event.objects.filter(type=Event.Type.GUIDELINES_CHANGED).count() == 2
    assert client.get(reverse("guidelines"), {"version": "x"}).status_code == 404


def test_an_unchanged_save_says_so_on_the_form(client, tuner):
    client.force_login(tuner)
    client.post(reverse("guidelines_edit"), {"text": "Same."})
    html = client.post(reverse("guidelines_edit"), {"text": "Same."}).content.decode()
    assert "unchanged" in html
    assert GuidelinesVersion.objects.count() == 1
