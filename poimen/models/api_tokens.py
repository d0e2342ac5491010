"""Bearer tokens of the JSON API."""

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A bearer token for the JSON API, acting as its user. Only its SHA-256 is stored: the
    token is shown once, when it is made (poimen.services.tokens)."""

    key_sha256 = models.CharField(max_length=64, unique=True)
    # The token's first characters, to tell tokens apart in a list without holding them.
    prefix = models.CharField(max_length=16)
    name = models.CharField(max_length=100)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="api_tokens"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Shadow mode: the token's records are decided and recorded (in a run marked shadow) and
    # the answer says what would have happened, but the client keeps every record.
    shadow = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        state = " (revoked)" if self.revoked_at else " (shadow)" if self.shadow else ""
        return f"{self.name} [{self.prefix}…] of {self.user}{state}"
