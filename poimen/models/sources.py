"""The sources (a record's `source`: the memory system that sends it) in shadow mode."""

from django.conf import settings
from django.db import models


class ShadowSource(models.Model):
    """A source whose records are decided and recorded but never withheld, whatever the token
    that sends them: the API's answer says what would have happened, and the records are in a
    run marked shadow. A row is the mode; none is enforcing (poimen.services.sources)."""

    source = models.CharField(max_length=255, unique=True)
    since = models.DateTimeField(auto_now_add=True)
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["source"]

    def __str__(self) -> str:
        return f"{self.source} (shadow)"
