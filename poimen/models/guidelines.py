"""The team's review guidelines: a text admins edit, every version kept.

Each save is a new row (never an update), so the history is the table itself and the audit log
names the version each change made (Event.Type.GUIDELINES_CHANGED)."""

from django.conf import settings
from django.db import models


class GuidelinesVersion(models.Model):
    text = models.TextField()
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.PROTECT,
        related_name="guidelines_versions",
    )
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"guidelines version {self.pk}"
