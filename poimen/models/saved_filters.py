"""A reviewer's saved filters: a list's filter set under a name of their choosing."""

from django.conf import settings
from django.db import models


class SavedFilter(models.Model):
    """The filters of a list (its query string) saved by one user under a name.

    A preference, not a decision: it changes no record and leaves no event. The query is kept
    as it was saved and parsed again when applied, so a filter that no longer parses (a kind
    since removed) is a form error then, never a failure here."""

    class List(models.TextChoices):
        EXCLUSIONS = "exclusions", "Exclusions"
        NEAR_MISSES = "near_misses", "Near misses"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="saved_filters"
    )
    list_name = models.CharField(max_length=20, choices=List.choices)
    name = models.CharField(max_length=100)
    query = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["list_name", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "list_name", "name"], name="saved_filter_name_per_user_list"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.list_name}, {self.user_id})"
