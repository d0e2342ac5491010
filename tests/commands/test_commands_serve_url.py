"""`serve` prints a URL the desk answers at, or says which host to open: Django answers 400 to
a host ALLOWED_HOSTS does not take (docs/operators.md's ALLOWED_HOSTS=poimen.example.org)."""

import pytest

from poimen.management.commands.serve import _url


@pytest.mark.parametrize(
    "allowed, host, said",
    [
        (["127.0.0.1", "localhost"], "127.0.0.1", "http://127.0.0.1:8000/"),
        (["*"], "0.0.0.0", "http://127.0.0.1:8000/"),
        (
            ["poimen.example.org"],
            "127.0.0.1",
            "on 127.0.0.1:8000, which ALLOWED_HOSTS (poimen.example.org) does not take: "
            "open http://poimen.example.org/ (through the proxy), or add 127.0.0.1 to "
            "ALLOWED_HOSTS;",
        ),
    ],
)
def test_serve_says_where_the_desk_answers(settings, allowed, host, said):
    settings.ALLOWED_HOSTS = allowed
    assert _url(host, 8000) == said
