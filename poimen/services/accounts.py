"""Accounts: adding a team member with a role, the login lockout's events, unlocking."""

import secrets

from axes.utils import reset as axes_reset
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import ValidationError
from django.db import transaction

from poimen.models import Event, OneTimePassword
from poimen.services.common import InputError
from poimen.team.roles import ROLES, role_groups_sync


def _role(name: str):
    if name not in ROLES:
        raise InputError(f"role {name!r}: one of {', '.join(ROLES)}")
    return ROLES[name]


@transaction.atomic
def role_assign(*, user, role: str) -> None:
    """Give `user` exactly the role's group (and no other role's) and its admin access."""
    wanted = _role(role)
    role_groups_sync(group_model=Group, permission_model=Permission)
    role_groups = [r.group for r in ROLES.values() if r.group]
    user.groups.remove(*Group.objects.filter(name__in=role_groups))
    if wanted.group:
        user.groups.add(Group.objects.get(name=wanted.group))
    user.is_staff = wanted.staff
    user.save(update_fields=["is_staff"])


@transaction.atomic
def user_add(*, username: str, role: str, actor=None) -> tuple[object, str]:
    """A new account with `role`; returns it and its one-time password (shown once, stored
    only as a hash)."""
    _role(role)
    user_model = get_user_model()
    try:
        user_model.username_validator(username)
    except ValidationError as error:
        raise InputError(f"user name {username!r}: {' '.join(error.messages)}") from None
    if user_model.objects.filter(username=username).exists():
        raise InputError(f"user {username!r} exists already")
    password = secrets.token_urlsafe(12)
    user = user_model.objects.create_user(username, password=password)
    role_assign(user=user, role=role)
    OneTimePassword.objects.create(user=user)  # replaced at the first login
    Event.objects.log(Event.Type.USER_ADDED, actor=actor, data={"username": username, "role": role})
    return user, password


def login_lockout_record(*, username: str, address: str | None, failures: int) -> Event:
    """The event of a user and address being locked out after too many wrong passwords."""
    return Event.objects.log(
        Event.Type.LOGIN_LOCKED_OUT,
        data={"username": username, "address": address or "", "failures": failures},
    )


@transaction.atomic
def login_unlock(*, username: str, actor=None) -> int:
    """Lift the lockout of `username` (from every address); returns the attempts cleared."""
    cleared = axes_reset(username=username)
    if cleared:
        Event.objects.log(
            Event.Type.LOGIN_UNLOCKED,
            actor=actor,
            data={"username": username, "cleared": cleared},
        )
    return cleared


def one_time_password_replaced(*, user) -> bool:
    """`user` chose a password of their own: the one-time one is gone. Whether they had one."""
    deleted, _ = OneTimePassword.objects.filter(user=user).delete()
    return bool(deleted)
