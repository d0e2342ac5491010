"""API tokens: made (shown once, stored as a SHA-256), revoked, and recognised on a request."""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from poimen.models import ApiToken, Event
from poimen.services.common import InputError

TOKEN_PREFIX = "poimen_"
# What a token may be allowed, as "app_label.codename": read with the token, in its query.
API_PERMISSIONS = ("poimen.check_records", "poimen.register_artifact")
# last_used_at is written at most this often per token: a write on every request would cost
# more than the check it authorises.
LAST_USED_EVERY = timedelta(seconds=60)


def _sha256(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


@dataclass
class NewToken:
    token: ApiToken
    raw: str  # the bearer token itself: shown once, never stored


def api_token_create(*, username: str, name: str, actor=None) -> NewToken:
    """A new token acting as `username`, labelled `name`; the raw token is in the result only."""
    name = name.strip()
    if not 0 < len(name) <= 100:
        raise InputError("a token needs a name of 1 to 100 characters (--name)")
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise InputError(f"no user {username!r}: create it first (createsuperuser, or the admin)")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        token = ApiToken.objects.create(
            key_sha256=_sha256(raw), prefix=raw[: len(TOKEN_PREFIX) + 8], name=name, user=user
        )
        Event.objects.log(
            Event.Type.API_TOKEN_CREATED,
            actor=actor or user,
            data={"token": token.name, "prefix": token.prefix, "user": user.get_username()},
        )
    return NewToken(token=token, raw=raw)


def api_token_revoke(*, token: str, actor=None) -> ApiToken:
    """Revoke a token, named by itself or by its prefix (as the admin and create_api_token
    show it)."""
    live = ApiToken.objects.select_related("user").filter(revoked_at=None)
    found = (
        live.filter(key_sha256=_sha256(token.strip())).first()
        or live.filter(prefix=token.strip().rstrip("…")).first()
    )
    if found is None:
        raise InputError(f"no live token is {token!r} or starts so (see the admin's API tokens)")
    token = found
    with transaction.atomic():
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        Event.objects.log(
            Event.Type.API_TOKEN_REVOKED,
            actor=actor,
            data={"token": token.name, "prefix": token.prefix, "user": token.user.get_username()},
        )
    return token


class TokenRefused(Exception):
    """A bearer token that is not one of ours, or no longer valid: why, for the 401."""


def _held(permission: str):
    """Whether the token's user holds `permission`, as Django's ModelBackend decides it for
    an active user (a superuser holds all; else directly or through a group), as a
    subquery: the check costs no query of its own."""
    app_label, codename = permission.split(".")
    named = Permission.objects.filter(content_type__app_label=app_label, codename=codename)
    return (
        Q(user__is_superuser=True)
        | Exists(named.filter(user=OuterRef("user_id")))
        | Exists(named.filter(group__user=OuterRef("user_id")))
    )


def api_token_authenticate(raw: str) -> ApiToken:
    """The live token `raw` is, with its user and the API permissions it holds
    (`token.permissions`), in one query; its last use noted (once a minute at most).

    Nothing is cached: a token revoked, a user made inactive or a permission taken away
    holds from the next request, in every process."""
    held = {f"held_{n}": _held(p) for n, p in enumerate(API_PERMISSIONS)}
    token = (
        ApiToken.objects.select_related("user")
        .annotate(**held)
        .filter(key_sha256=_sha256(raw.strip()))
        .first()
    )
    if token is None:
        raise TokenRefused("unknown token")
    if token.revoked_at is not None:
        raise TokenRefused(f"token {token.prefix}… was revoked")
    if not token.user.is_active:
        raise TokenRefused(f"token {token.prefix}… belongs to an inactive user")
    token.permissions = frozenset(
        p for n, p in enumerate(API_PERMISSIONS) if getattr(token, f"held_{n}")
    )
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
