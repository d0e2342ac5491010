"""Every model in the admin; the audit log read-only."""

from django.contrib import admin

from poimen.models import (
    Artifact,
    Event,
    IngestRun,
    KindPolicy,
    Match,
    Record,
    Review,
    ThresholdChange,
)


@admin.register(Artifact)
class ArtifactAdmin(admin.ModelAdmin):
    list_display = ["kind", "name", "sha256", "n_tokens", "emitted_at", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "sha256"]
    readonly_fields = ["sha256", "shingle_normaliser", "shingle_k", "shingle_hash", "n_tokens"]


@admin.register(KindPolicy)
class KindPolicyAdmin(admin.ModelAdmin):
    list_display = ["kind", "threshold", "min_shared"]


@admin.register(ThresholdChange)
class ThresholdChangeAdmin(admin.ModelAdmin):
    list_display = ["kind", "old", "new", "actor", "created_at", "reason"]
    list_select_related = ["actor"]
    list_filter = ["kind"]


@admin.register(IngestRun)
class IngestRunAdmin(admin.ModelAdmin):
    list_display = ["pk", "source", "filtered", "started_at", "finished_at"]
    list_filter = ["filtered"]


@admin.register(Record)
class RecordAdmin(admin.ModelAdmin):
    list_display = ["external_id", "source", "status", "derived", "best_overlap", "created_at"]
    list_filter = ["status", "derived", "source"]
    search_fields = ["external_id", "session"]
    raw_id_fields = ["run", "best_artifact", "review"]


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["record", "artifact", "overlap", "shared", "threshold"]
    list_select_related = ["record", "artifact"]
    raw_id_fields = ["record", "artifact"]


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    list_display = ["record", "verdict", "reviewer", "created_at"]
    list_select_related = ["record", "reviewer"]
    list_filter = ["verdict"]
    raw_id_fields = ["record"]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    """Append-only, like django.contrib.admin's LogEntry: viewable, never edited here."""

    list_display = ["type", "kind", "record", "artifact", "actor", "created_at"]
    list_select_related = ["record", "artifact", "actor"]
    list_filter = ["type", "kind"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
