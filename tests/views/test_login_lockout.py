"""Logins throttled by django-axes: five wrong passwords for one user from one address lock
that pair out, with a clear page, one event, and `unlock_user` to lift it."""

from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

from poimen.models import Event

PASSWORD = "rita-reviews-things"


def attempt(client, password, address="127.0.0.1"):
    return client.post(
        reverse("login"), {"username": "rita", "password": password}, REMOTE_ADDR=address
    )


def lock_out(client):
    responses = [attempt(client, f"wrong-{n}") for n in range(settings.AXES_FAILURE_LIMIT)]
    assert [r.status_code for r in responses[:-1]] == [200] * (settings.AXES_FAILURE_LIMIT - 1)
    return responses[-1]


def test_the_failure_that_reaches_the_limit_locks_out_with_a_clear_page(client, reviewer):
    response = lock_out(client)
    assert response.status_code == 429
    page = response.content.decode()
    assert "Too many wrong passwords for rita" in page
    assert f"refused for {settings.AXES_COOLOFF_TIME.seconds // 60} minutes" in page
    assert 'name="password"' in page  # still the login page, not a bare error


def test_the_right_password_is_refused_while_locked_out(client, reviewer):
    lock_out(client)
    response = attempt(client, PASSWORD)
    assert response.status_code == 429
    assert client.get(reverse("overview")).status_code == 302  # not logged in


def test_a_lockout_is_one_event_however_many_attempts_follow(client, reviewer):
    lock_out(client)
    for _ in range(3):
        attempt(client, PASSWORD)
    (event,) = Event.objects.filter(type=Event.Type.LOGIN_LOCKED_OUT)
    assert event.data == {
        "username": "rita",
        "address": "127.0.0.1",
        "failures": settings.AXES_FAILURE_LIMIT,
    }


def test_the_lockout_is_per_user_and_address(client, reviewer):
    lock_out(client)
    response = attempt(client, PASSWORD, address="10.1.2.3")
    assert response.status_code == 302


def test_unlock_user_lifts_the_lockout_and_writes_an_event(client, reviewer, capsys):
    lock_out(client)
    call_command("unlock_user", "rita")
    assert "rita: unlocked" in capsys.readouterr().out
    assert Event.objects.filter(type=Event.Type.LOGIN_UNLOCKED, data__username="rita").exists()
    assert attempt(client, PASSWORD).status_code == 302


def test_unlock_user_of_someone_not_locked_out_writes_nothing(reviewer, capsys):
    call_command("unlock_user", "rita")
    assert "was not locked out" in capsys.readouterr().out
    assert not Event.objects.filter(type=Event.Type.LOGIN_UNLOCKED).exists()


def test_a_success_before_the_limit_starts_the_count_again(client, reviewer):
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        attempt(client, f"wrong-{n}")
    assert attempt(client, PASSWORD).status_code == 302
    client.post(reverse("logout"))
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        assert attempt(client, f"wrong-again-{n}").status_code == 200


def test_behind_the_proxy_the_address_is_the_one_the_proxy_appended(client, reviewer, settings):
    settings.POIMEN_HTTPS = True
    settings.SECURE_SSL_REDIRECT = False  # the test client speaks plain HTTP

    def attempt_from(address, password):
        return client.post(
            reverse("login"),
            {"username": "rita", "password": password},
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_FORWARDED_FOR=f"203.0.113.9, {address}",  # the first hop is the client's say
        )

    responses = [attempt_from("198.51.100.7", f"wrong-{n}") for n in range(5)]
    assert responses[-1].status_code == 429
    (event,) = Event.objects.filter(type=Event.Type.LOGIN_LOCKED_OUT)
    assert event.data["address"] == "198.51.100.7"
    assert attempt_from("198.51.100.8", PASSWORD).status_code == 302
