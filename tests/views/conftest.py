"""The view tests' client, logged in as the reviewer (tests/conftest.py's `reviewer`)."""

import pytest


@pytest.fixture
def logged_in(client, reviewer):
    client.force_login(reviewer)
    return client
