"""Saved filters from the desk: saved from a list, listed on the list and their own page,
applied, renamed, deleted; each user's own; a saved filter that no longer parses opens with
its error named, never a 500."""

from django.contrib.auth.models import User
from django.urls import reverse

from poimen.models import Artifact, Event, SavedFilter
from poimen.services import saved_filter_save


def save(client, name, query, list_name="exclusions"):
    return client.post(
        reverse("saved_filter_save"), {"list": list_name, "query": query, "name": name}
    )


def test_save_the_filters_shown_then_see_and_apply_them(logged_in, desk_data, reviewer):
    page = logged_in.get(reverse("exclusions") + "?kind=skill&sort=closeness").content.decode()
    # The save form is in the results, with the filters the results were selected by.
    assert 'name="query" value="kind=skill&amp;sort=closeness"' in page
    response = save(logged_in, "skills, nearest first", "kind=skill&sort=closeness&after=x")
    assert response.status_code == 302
    assert response["Location"] == reverse("exclusions") + "?kind=skill&sort=closeness"
    saved = SavedFilter.objects.get(user=reviewer)
    assert (saved.name, saved.list_name, saved.query) == (
        "skills, nearest first",
        "exclusions",
        "kind=skill&sort=closeness",
    )
    assert not Event.objects.filter(actor=reviewer).exists()  # a preference, not a decision
    listed = logged_in.get(reverse("exclusions")).content.decode()
    apply_url = reverse("saved_filter_apply", args=[saved.pk])
    assert f'href="{apply_url}"' in listed and "skills, nearest first" in listed
    assert "Filters saved as “skills, nearest first”: kind skill." in listed
    # Not on the other list's page.
    assert apply_url not in logged_in.get(reverse("near_misses")).content.decode()
    applied = logged_in.get(apply_url)
    assert applied.status_code == 302
    assert applied["Location"] == reverse("exclusions") + "?kind=skill&sort=closeness"
    manage = logged_in.get(reverse("saved_filters")).content.decode()
    assert "skills, nearest first" in manage and "kind skill" in manage


def test_the_htmx_results_fragment_saves_the_filters_it_shows(logged_in, desk_data):
    fragment = logged_in.get(
        reverse("exclusions") + "?reason=quoted", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="results"
    ).content.decode()
    assert 'name="query" value="reason=quoted"' in fragment
    assert "Saved filters:" not in fragment  # the list of them is the full page's


def test_filters_that_do_not_parse_are_not_saved(logged_in, desk_data):
    response = save(logged_in, "broken", "kind=ghost")
    assert response.status_code == 302
    page = logged_in.get(response["Location"]).content.decode()
    assert "Not saved: some filters were not understood (kind:" in page
    assert not SavedFilter.objects.exists()


def test_a_name_is_needed_and_unique(logged_in, desk_data):
    page = logged_in.get(save(logged_in, "  ", "kind=skill")["Location"]).content.decode()
    assert "Not saved: Give the filters a name to save them under." in page
    save(logged_in, "mine", "kind=skill")
    page = logged_in.get(save(logged_in, "mine", "")["Location"]).content.decode()
    assert "Not saved: you already have a saved filter named “mine” on exclusions." in page
    assert SavedFilter.objects.count() == 1


def test_a_saved_filter_whose_kind_was_removed_opens_with_the_error_named(
    logged_in, desk_data, reviewer
):
    # Saved while kind "memory" had artifacts; now the desk knows no such kind.
    saved = saved_filter_save(
        user=reviewer, list_name="exclusions", name="old memory", query="kind=memory&sort=time"
    )
    assert not Artifact.objects.filter(kind="memory").exists()
    response = logged_in.get(reverse("saved_filter_apply", args=[saved.pk]), follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert "The saved filter “old memory” has filters that no longer apply (kind:" in html
    assert "Some filters were not understood: kind" in html  # and the list says so too
    manage = logged_in.get(reverse("saved_filters")).content.decode()
    assert "No longer understood: kind:" in manage


def test_rename_and_delete_from_the_saved_filters_page(logged_in, desk_data, reviewer):
    saved = saved_filter_save(user=reviewer, list_name="near_misses", name="a", query="")
    saved_filter_save(user=reviewer, list_name="near_misses", name="b", query="")
    back = reverse("saved_filters")
    response = logged_in.post(
        reverse("saved_filter_rename", args=[saved.pk]), {"name": "b", "next": back}
    )
    assert response["Location"] == back
    page = logged_in.get(back).content.decode()
    assert "Not renamed: you already have a saved filter named “b” on near misses." in page
    logged_in.post(reverse("saved_filter_rename", args=[saved.pk]), {"name": "c"})
    assert SavedFilter.objects.get(pk=saved.pk).name == "c"
    page = logged_in.get(back).content.decode()
    assert "“a” is now “c”." in page
    logged_in.post(reverse("saved_filter_delete", args=[saved.pk]))
    assert list(SavedFilter.objects.values_list("name", flat=True)) == ["b"]


def test_each_user_sees_and_changes_only_their_own(client, desk_data, reviewer):
    saved = saved_filter_save(user=reviewer, list_name="exclusions", name="rita's", query="")
    reader = User.objects.create_user("rea", password="only-reads-things")
    client.force_login(reader)
    assert "rita's" not in client.get(reverse("saved_filters")).content.decode()
    assert "rita's" not in client.get(reverse("exclusions")).content.decode()
    assert client.get(reverse("saved_filter_apply", args=[saved.pk])).status_code == 404
    assert (
        client.post(reverse("saved_filter_rename", args=[saved.pk]), {"name": "x"}).status_code
        == 404
    )
    assert client.post(reverse("saved_filter_delete", args=[saved.pk])).status_code == 404
    assert SavedFilter.objects.get().name == "rita's"
    # A reader may keep filters of their own: reading lists is what they do.
    save(client, "mine", "kind=skill")
    assert SavedFilter.objects.filter(user=reader).count() == 1


def test_an_unknown_list_is_a_404_and_gets_are_refused(logged_in, desk_data):
    assert save(logged_in, "x", "", list_name="audit").status_code == 404
    assert logged_in.get(reverse("saved_filter_save")).status_code == 405
    assert not SavedFilter.objects.exists()


def test_saved_filters_page_is_empty_at_first_and_says_where_to_start(logged_in, desk_data):
    page = logged_in.get(reverse("saved_filters"))
    assert page.status_code == 200 and b"No saved filters yet" in page.content
