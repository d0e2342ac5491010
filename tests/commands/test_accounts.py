"""Roles for a team: the groups the migration made, and `add_user` with its one-time password."""

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.urls import reverse

from poimen.models import Event
from poimen.team.roles import ROLES


def add_user(capsys, username, role):
    call_command("add_user", username, "--role", role)
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("one-time password: ")
    return out[-1].removeprefix("one-time password: ")


def log_in(client, username, password):
    """Log in with the printed password and, as the desk then asks first, replace it."""
    response = client.post(reverse("login"), {"username": username, "password": password})
    assert response.status_code == 302, "the printed password does not log in"
    new = f"{username}-own-password-1"
    replaced = client.post(
        reverse("password_change"),
        {"old_password": password, "new_password1": new, "new_password2": new},
    )
    assert replaced.status_code == 302
    return client


@pytest.mark.django_db
def test_the_migration_made_each_roles_group_with_its_permissions():
    for role in ROLES.values():
        if role.group is None:
            continue
        group = Group.objects.get(name=role.group)
        assert set(group.permissions.values_list("codename", flat=True)) == set(role.permissions)


@pytest.mark.django_db
def test_a_reviewer_judges_but_does_not_tune(client, capsys, desk_data):
    password = add_user(capsys, "ada", "reviewer")
    user = User.objects.get(username="ada")
    assert user.has_perm("poimen.review_record") and not user.has_perm("poimen.tune_threshold")
    assert not user.is_staff
    log_in(client, "ada", password)
    assert client.get(reverse("tuning")).status_code == 403
    record = desk_data["verbatim"]
    assert b'class="verdict"' in client.get(reverse("record", args=[record.pk])).content


@pytest.mark.django_db
def test_an_admin_tunes_thresholds_and_reads_the_django_admin(client, capsys):
    password = add_user(capsys, "bea", "admin")
    user = User.objects.get(username="bea")
    assert user.has_perm("poimen.tune_threshold") and user.has_perm("poimen.review_record")
    log_in(client, "bea", password)
    assert client.get(reverse("tuning")).status_code == 200
    assert client.get("/admin/poimen/event/").status_code == 200


@pytest.mark.django_db
def test_a_reader_reads_and_judges_nothing(client, capsys, desk_data):
    password = add_user(capsys, "cy", "reader")
    user = User.objects.get(username="cy")
    assert not user.groups.exists() and not user.has_perm("poimen.review_record")
    log_in(client, "cy", password)
    assert client.get(reverse("exclusions")).status_code == 200
    record = desk_data["verbatim"]
    assert b'class="verdict"' not in client.get(reverse("record", args=[record.pk])).content


@pytest.mark.django_db
def test_each_added_user_is_an_event_and_gets_a_password_of_its_own(capsys):
    first = add_user(capsys, "dee", "reviewer")
    second = add_user(capsys, "eve", "reviewer")
    assert first != second and len(first) >= 16
    events = Event.objects.filter(type=Event.Type.USER_ADDED).order_by("id")
    assert [e.data for e in events] == [
        {"username": "dee", "role": "reviewer"},
        {"username": "eve", "role": "reviewer"},
    ]


@pytest.mark.django_db
def test_an_existing_user_name_is_refused(capsys):
    add_user(capsys, "fay", "reader")
    with pytest.raises(CommandError, match="exists already") as error:
        call_command("add_user", "fay", "--role", "admin")
    assert error.value.returncode == 2
    assert not User.objects.get(username="fay").is_staff


@pytest.mark.django_db
def test_an_unknown_role_or_bad_name_is_refused():
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("add_user", "gus", "--role", "owner")
    with pytest.raises(CommandError, match="user name") as error:
        call_command("add_user", "no spaces allowed", "--role", "reader")
    assert error.value.returncode == 2
    assert not User.objects.exists()


@pytest.mark.django_db
def test_the_one_time_password_is_replaced_on_the_password_page(client, capsys):
    handed_over = add_user(capsys, "hal", "reviewer")
    client.post(reverse("login"), {"username": "hal", "password": handed_over})
    # Any page of the desk sends hal to replace it first.
    assert client.get(reverse("overview"))["Location"] == reverse("password_change")
    assert b"Change your password" in client.get(reverse("password_change")).content
    response = client.post(
        reverse("password_change"),
        {
            "old_password": handed_over,
            "new_password1": "hal-picked-this-one",
            "new_password2": "hal-picked-this-one",
        },
    )
    assert response.status_code == 302
    assert client.get(response.url).status_code == 200
    client.post(reverse("logout"))
    assert (
        client.post(reverse("login"), {"username": "hal", "password": handed_over}).status_code
        == 200
    )
    log_in(client, "hal", "hal-picked-this-one")
