"""Reads about a team member's account."""

from poimen.models import OneTimePassword


def has_one_time_password(user) -> bool:
    """Whether `user` still has the one-time password `add_user` printed."""
    return OneTimePassword.objects.filter(user=user).exists()
