"""Tokens and a client that sends them, for the API's tests."""

import json

import pytest


@pytest.fixture
def api_user(db):
    """A user holding both API permissions."""
    from django.contrib.auth.models import Permission, User

    user = User.objects.create_user("memory-system")
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["check_records", "register_artifact"])
    )
    return user


@pytest.fixture
def make_token(db):
    """make_token(user) -> the raw bearer token of a new token acting as `user`."""
    from poimen.services.tokens import api_token_create

    def make(user, name="tests"):
        return api_token_create(username=user.username, name=name).raw

    return make


class ApiClient:
    """Django's test client speaking JSON with a bearer token."""

    def __init__(self, client, token):
        self.client, self.token = client, token

    def _headers(self):
        return {"HTTP_AUTHORIZATION": f"Bearer {self.token}"} if self.token else {}

    def get(self, path, **params):
        return self.client.get(path, params, **self._headers())

    def post(self, path, body, *, raw=False):
        data = body if raw else json.dumps(body)
        return self.client.post(path, data, content_type="application/json", **self._headers())


@pytest.fixture
def api(client, api_user, make_token):
    return ApiClient(client, make_token(api_user))


@pytest.fixture
def anonymous_api(client):
    return ApiClient(client, None)
