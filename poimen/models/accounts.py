"""A team member's account beyond Django's user: whether their password is still the
one-time password `add_user` printed."""

from django.conf import settings
from django.db import models


class OneTimePassword(models.Model):
    """`user` still logs in with the one-time password `add_user` printed: the desk asks for a
    new one before anything else (poimen.web.middleware.OneTimePasswordMiddleware). Deleted when
    they replace it."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    issued_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"user {self.user_id}: one-time password of {self.issued_at:%Y-%m-%d}"
