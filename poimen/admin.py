"""Every model in the admin, to look at. Nothing is changed here: each change the desk or a
command makes goes through a service that applies it and writes its event, and an edit in the
admin would do neither (a threshold typed here would leave every status as it was). The one
exception, the sources in shadow mode, is added and deleted through its service, event and all.
"""

from django.contrib import admin

from poimen.models import (
    ApiToken,
    Artifact,
    AuditHead,
    Claim,
    Event,
    GuidelinesVersion,
    IngestRun,
    KindPolicy,
    Match,
    OneTimePassword,
    OverviewVisit,
    QueuedBatch,
    Record,
    Review,
    SavedFilter,
    SecondReview,
    ShadowSource,
    ThresholdChange,
)
from poimen.services import source_mode


class ReadOnlyAdmin(admin.ModelAdmin):
    """Viewable, never added, changed or deleted here (like django.contrib.admin's LogEntry)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Artifact)
class ArtifactAdmin(ReadOnlyAdmin):
    list_display = ["kind", "name", "sha256", "n_tokens", "emitted_at", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name", "sha256"]


@admin.register(KindPolicy)
class KindPolicyAdmin(ReadOnlyAdmin):
    list_display = ["kind", "threshold", "min_shared", "on_derived"]


@admin.register(ThresholdChange)
class ThresholdChangeAdmin(ReadOnlyAdmin):
    list_display = ["kind", "old", "new", "actor", "created_at", "reason"]
    list_select_related = ["actor"]
    list_filter = ["kind"]


@admin.register(IngestRun)
class IngestRunAdmin(ReadOnlyAdmin):
    list_display = ["pk", "source", "filtered", "started_at", "finished_at"]
    list_filter = ["filtered"]


@admin.register(Record)
class RecordAdmin(ReadOnlyAdmin):
    list_display = ["external_id", "source", "status", "derived", "best_overlap", "created_at"]
    list_filter = ["status", "derived", "source"]
    search_fields = ["external_id", "session"]
    raw_id_fields = ["run", "best_artifact", "review"]


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ["record", "artifact", "overlap", "shared", "threshold"]
    list_select_related = ["record", "artifact"]
    raw_id_fields = ["record", "artifact"]


@admin.register(Review)
class ReviewAdmin(ReadOnlyAdmin):
    list_display = ["record", "verdict", "reviewer", "created_at"]
    list_select_related = ["record", "reviewer"]
    list_filter = ["verdict"]
    raw_id_fields = ["record"]


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    """Append-only: on PostgreSQL a trigger refuses UPDATE and DELETE as well."""

    list_display = ["type", "kind", "record", "artifact", "actor", "created_at"]
    list_select_related = ["record", "artifact", "actor"]
    list_filter = ["type", "kind"]


@admin.register(AuditHead)
class AuditHeadAdmin(ReadOnlyAdmin):
    """The audit chain's head (verify_audit checks it against the events)."""

    list_display = ["events", "last_id", "hash"]


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """Made and revoked with create_api_token / revoke_api_token; the token itself is never
    stored, only its SHA-256 (not shown here)."""

    list_display = ["prefix", "name", "user", "shadow", "created_at", "last_used_at", "revoked_at"]
    list_select_related = ["user"]
    list_filter = ["revoked_at", "shadow"]
    search_fields = ["name", "prefix", "user__username"]
    exclude = ["key_sha256"]


@admin.register(ShadowSource)
class ShadowSourceAdmin(admin.ModelAdmin):
    """A source put in shadow mode here (or with the source_mode command) has its records
    decided and recorded, never withheld; deleting it switches the source back to enforcing.
    Either goes through source_mode, which writes the source_mode_changed event."""

    list_display = ["source", "since", "set_by"]
    fields = ["source"]
    search_fields = ["source"]

    def has_change_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        source_mode(source=obj.source, shadow=True, actor=request.user)
        obj.pk = ShadowSource.objects.get(source=obj.source.strip()).pk

    def delete_model(self, request, obj):
        source_mode(source=obj.source, shadow=False, actor=request.user)

    def delete_queryset(self, request, queryset):
        for row in queryset:
            self.delete_model(request, row)


@admin.register(QueuedBatch)
class QueuedBatchAdmin(ReadOnlyAdmin):
    list_display = ["job", "number", "state", "size", "attempts", "worker", "sent_at", "done_at"]
    list_filter = ["state"]
    search_fields = ["job", "worker"]


@admin.register(SavedFilter)
class SavedFilterAdmin(ReadOnlyAdmin):
    """A user's saved filters, read-only like the rest (each user manages theirs on the desk)."""

    list_display = ["name", "user", "list_name", "query", "updated_at"]
    list_filter = ["list_name"]
    search_fields = ["name", "user__username"]


# --- the desk for a team ----------------------------------------------------------------------


@admin.register(Claim)
class ClaimAdmin(ReadOnlyAdmin):
    list_display = ["record", "reviewer", "hold", "claimed_at", "expires_at"]
    list_select_related = ["record", "reviewer"]
    raw_id_fields = ["record"]


@admin.register(SecondReview)
class SecondReviewAdmin(ReadOnlyAdmin):
    list_display = ["record", "verdict", "reviewer", "judged_at", "settled_verdict", "settled_at"]
    list_select_related = ["record", "reviewer"]
    raw_id_fields = ["record", "first_review"]


@admin.register(OneTimePassword)
class OneTimePasswordAdmin(ReadOnlyAdmin):
    list_display = ["user", "issued_at"]
    list_select_related = ["user"]


@admin.register(OverviewVisit)
class OverviewVisitAdmin(ReadOnlyAdmin):
    list_display = ["user", "seen_at"]
    list_select_related = ["user"]


@admin.register(GuidelinesVersion)
class GuidelinesVersionAdmin(ReadOnlyAdmin):
    """Every version of the review guidelines (edited on the desk, under Guidelines)."""

    list_display = ["id", "author", "created_at", "note"]
    list_select_related = ["author"]
