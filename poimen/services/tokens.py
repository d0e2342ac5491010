"""API tokens: made (shown once, stored as a SHA-256), revoked, and recognised on a request."""

import hashlib
import secrets
import time
from dataclasses import dataclass
from datetime import timedelta
from functools import cache

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.utils import timezone

from poimen.models import ApiToken, Event
from poimen.services.common import InputError

TOKEN_PREFIX = "poimen_"
# A token's modes, as events and commands name them: its records withheld where derived
# (enforce) or decided and recorded only (shadow).
MODE_ENFORCE, MODE_SHADOW = "enforce", "shadow"
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


def api_token_create(
    *, username: str, name: str, allow: tuple[str, ...] = (), shadow: bool = False, actor=None
) -> NewToken:
    """A new token acting as `username`, labelled `name`; the raw token is in the result only.
    `allow` (of API_PERMISSIONS) are given to the user first: nothing else in a deployment
    gives them, as the admin changes nothing. A `shadow` token's records are decided and
    recorded, never withheld (ApiToken.shadow)."""
    name = name.strip()
    if not 0 < len(name) <= 100:
        raise InputError("a token needs a name of 1 to 100 characters (--name)")
    unknown = sorted(set(allow) - set(API_PERMISSIONS))
    if unknown:
        raise InputError(f"not an API permission: {', '.join(unknown)}")
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise InputError(f"no user {username!r}: create it first (add_user {username} --role ...)")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        granted = [
            permission
            for permission in API_PERMISSIONS
            if permission in allow and not user.has_perm(permission)
        ]
        for permission in granted:
            app_label, codename = permission.split(".")
            user.user_permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )
        token = ApiToken.objects.create(
            key_sha256=_sha256(raw),
            prefix=raw[: len(TOKEN_PREFIX) + 8],
            name=name,
            user=user,
            shadow=shadow,
        )
        data = {"token": token.name, "prefix": token.prefix, "user": user.get_username()}
        if shadow:
            data["mode"] = MODE_SHADOW
        Event.objects.log(
            Event.Type.API_TOKEN_CREATED,
            actor=actor or user,
            data={**data, "granted": granted} if granted else data,
        )
    user = get_user_model().objects.get(pk=user.pk)  # its permissions read afresh
    token.permissions = frozenset(p for p in API_PERMISSIONS if user.has_perm(p))
    return NewToken(token=token, raw=raw)


def _live_token(token: str) -> ApiToken:
    """The live token named by itself or by its prefix (as the admin and create_api_token
    show it)."""
    live = ApiToken.objects.select_related("user").filter(revoked_at=None)
    found = (
        live.filter(key_sha256=_sha256(token.strip())).first()
        or live.filter(prefix=token.strip().rstrip("…")).first()
    )
    if found is None:
        raise InputError(f"no live token is {token!r} or starts so (see the admin's API tokens)")
    return found


def api_token_mode(*, token: str, shadow: bool, actor=None) -> ApiToken:
    """Put a token (named by itself or its prefix) in shadow mode, or back to enforcing.
    Server processes see it within POIMEN_API_TOKEN_CACHE_SECONDS."""
    token = _live_token(token)
    if token.shadow == shadow:
        return token
    old = MODE_SHADOW if token.shadow else MODE_ENFORCE
    with transaction.atomic():
        token.shadow = shadow
        token.save(update_fields=["shadow"])
        Event.objects.log(
            Event.Type.API_TOKEN_MODE_CHANGED,
            actor=actor,
            data={
                "token": token.name,
                "prefix": token.prefix,
                "user": token.user.get_username(),
                "old": old,
                "new": MODE_SHADOW if shadow else MODE_ENFORCE,
            },
        )
    api_tokens_forget()
    return token


def api_token_revoke(*, token: str, actor=None) -> ApiToken:
    """Revoke a token, named by itself or by its prefix (as the admin and create_api_token
    show it)."""
    token = _live_token(token)
    with transaction.atomic():
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        Event.objects.log(
            Event.Type.API_TOKEN_REVOKED,
            actor=actor,
            data={"token": token.name, "prefix": token.prefix, "user": token.user.get_username()},
        )
    api_tokens_forget()
    return token


class TokenRefused(Exception):
    """A bearer token that is not one of ours, or no longer valid: why, for the 401."""


def _held_sql(quote) -> str:
    """Whether the row's user `u` holds the permission of the two parameters (app label,
    codename), as Django's ModelBackend decides it for an active user: a superuser holds
    all; else directly or through a group."""
    user_model = get_user_model()
    user_pk = f"u.{quote(user_model._meta.pk.column)}"
    direct = user_model._meta.get_field("user_permissions")
    groups = user_model._meta.get_field("groups")
    group_permissions = Group._meta.get_field("permissions")
    permission = quote(Permission._meta.db_table)
    content_type = quote(ContentType._meta.db_table)
    named = (
        f"JOIN {permission} p ON p.id = x.{quote('permission_id')}"
        f" JOIN {content_type} c ON c.id = p.content_type_id"
        " AND c.app_label = %s AND p.codename = %s"
    )
    return (
        f"(u.{quote('is_superuser')}"
        f" OR EXISTS (SELECT 1 FROM {quote(direct.m2m_db_table())} x {named}"
        f" WHERE x.{quote(direct.m2m_column_name())} = {user_pk})"
        f" OR EXISTS (SELECT 1 FROM {quote(groups.m2m_db_table())} g"
        f" JOIN {quote(group_permissions.m2m_db_table())} x"
        f" ON x.{quote(group_permissions.m2m_column_name())} = g.{quote(groups.m2m_reverse_name())}"
        f" {named} WHERE g.{quote(groups.m2m_column_name())} = {user_pk}))"
    )


def _from_db(model, readers, values):
    """A `model` instance from the raw `values` of its fields, converted as the ORM converts
    what it reads (a datetime on SQLite, say); `readers` are _readers(model, fields)."""
    attnames, columns = readers
    converted = []
    for (column, converters), value in zip(columns, values, strict=True):
        for converter in converters:
            value = converter(value, column, connection)
        converted.append(value)
    return model.from_db(connection.alias, attnames, converted)


def _readers(model, fields) -> tuple[list, list]:
    """The attnames of `fields`, and each one's column with the converters the ORM applies to
    what it reads of it: looked up once (they were most of a token's check)."""
    columns = []
    for field in fields:
        column = field.get_col(model._meta.db_table)
        converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        columns.append((column, converters))
    return [f.attname for f in fields], columns


@cache
def _token_query() -> tuple[str, list, list]:
    """The SQL of the token with its user and the API permissions it holds, and the
    columns of each model it selects: written once, where the ORM would compile four
    subqueries on every request (costlier than the two queries they save)."""
    quote = connection.ops.quote_name
    user_model = get_user_model()
    token_fields, user_fields = ApiToken._meta.concrete_fields, user_model._meta.concrete_fields
    columns = [f"t.{quote(f.column)}" for f in ApiToken._meta.concrete_fields]
    columns += [f"u.{quote(f.column)}" for f in user_model._meta.concrete_fields]
    columns += [_held_sql(quote) for _ in API_PERMISSIONS]
    sql = (
        f"SELECT {', '.join(columns)} FROM {quote(ApiToken._meta.db_table)} t"
        f" JOIN {quote(user_model._meta.db_table)} u"
        f" ON u.{quote(user_model._meta.pk.column)} = t.{quote('user_id')}"
        f" WHERE t.{quote('key_sha256')} = %s"
    )
    return sql, _readers(ApiToken, token_fields), _readers(user_model, user_fields)


def _token_with_permissions(key_sha256: str) -> ApiToken | None:
    sql, token_fields, user_fields = _token_query()
    params = [part for p in API_PERMISSIONS for _ in range(2) for part in p.split(".")]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, key_sha256])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(token_fields[0])
    token = _from_db(ApiToken, token_fields, row[:split])
    end = split + len(user_fields[0])
    token.user = _from_db(get_user_model(), user_fields, row[split:end])
    token.permissions = frozenset(
        p for p, held in zip(API_PERMISSIONS, row[end:], strict=True) if held
    )
    return token


# Tokens recognised in this process: sha256 -> (the token, time.monotonic() when read). Kept
# POIMEN_API_TOKEN_CACHE_SECONDS: the query that reads a token with its user's permissions
# cost more than the check it authorises.
_recognised: dict[str, tuple[ApiToken, float]] = {}
_RECOGNISED_AT_MOST = 1000


def api_tokens_forget() -> None:
    """Drop the tokens this process recognised (a revoke does; tests do)."""
    _recognised.clear()


def _recognised_token(key_sha256: str) -> ApiToken | None:
    held = _recognised.get(key_sha256)
    if held is not None and time.monotonic() - held[1] < settings.POIMEN_API_TOKEN_CACHE_SECONDS:
        return held[0]
    token = _token_with_permissions(key_sha256)
    if token is not None and token.revoked_at is None and token.user.is_active:
        if len(_recognised) >= _RECOGNISED_AT_MOST:
            _recognised.clear()
        _recognised[key_sha256] = (token, time.monotonic())
    else:
        _recognised.pop(key_sha256, None)
    return token


def api_token_authenticate(raw: str) -> ApiToken:
    """The live token `raw` is, with its user and the API permissions it holds
    (`token.permissions`), in one query; its last use noted (once a minute at most).

    A token recognised is kept in this process for POIMEN_API_TOKEN_CACHE_SECONDS (default
    5): a token revoked, a user made inactive or a permission taken away holds from the next
    request in the process that revoked it, and within those seconds in every other one."""
    token = _recognised_token(_sha256(raw.strip()))
    if token is None:
        raise TokenRefused("unknown token")
    if token.revoked_at is not None:
        raise TokenRefused(f"token {token.prefix}… was revoked")
    if not token.user.is_active:
        raise TokenRefused(f"token {token.prefix}… belongs to an inactive user")
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
