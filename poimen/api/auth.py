"""Bearer tokens in, the token's user out; permissions per endpoint."""

from django.http import HttpRequest
from ninja.errors import AuthenticationError, HttpError
from ninja.security import HttpBearer

from poimen.models import ApiToken
from poimen.services.tokens import API_PERMISSIONS, TokenRefused, api_token_authenticate

NO_TOKEN = (
    "no bearer token: send 'Authorization: Bearer <token>' "
    "(a token is made with python manage.py create_api_token USERNAME --name LABEL)"
)


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> ApiToken:
        try:
            api_token = api_token_authenticate(token)
        except TokenRefused as refused:
            raise AuthenticationError(message=str(refused)) from None
        request.user = api_token.user
        return api_token


def token_allows(token: ApiToken, permission: str) -> bool:
    """Whether `token`'s user holds `permission` (one of API_PERMISSIONS, read with the
    token)."""
    if permission not in API_PERMISSIONS:
        raise ValueError(f"{permission} is not read with the token: add it to API_PERMISSIONS")
    return permission in token.permissions


def require_permission(request: HttpRequest, permission: str) -> ApiToken:
    """The request's token, if its user holds `permission` (token_allows); 403 if not."""
    token: ApiToken = request.auth
    if not token_allows(token, permission):
        raise HttpError(
            403, f"the token's user {token.user.get_username()!r} lacks the permission {permission}"
        )
    return token
