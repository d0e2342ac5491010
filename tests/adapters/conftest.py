"""The adapters' tests: a real poimen API (pytest-django's live server), a real memory
library from the package index, and a deterministic local model where the library needs one."""

import pytest

from tests.adapters.openai_standin import OpenAIStandIn


@pytest.fixture
def openai_standin():
    standin = OpenAIStandIn()
    yield standin
    standin.stop()


@pytest.fixture
def guard_token(db):
    """A token of a user holding both API permissions."""
    from django.contrib.auth.models import Permission, User

    from poimen.services.tokens import api_token_create

    user = User.objects.create_user("memory-system")
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["check_records", "register_artifact"])
    )
    return api_token_create(username=user.username, name="adapter").raw


@pytest.fixture
def guard(live_server, guard_token):
    from poimen.agent.client import Client

    return Client(live_server.url, guard_token, timeout=30, on_error="raise")


@pytest.fixture
def guard_down():
    """guard_down(on_error) -> a client of a poimen that is not there (nothing listens on
    127.0.0.1:9, the discard port)."""
    from poimen.agent.client import Client

    def make(on_error):
        return Client("http://127.0.0.1:9", "poimen_unused", timeout=2, on_error=on_error)

    return make
