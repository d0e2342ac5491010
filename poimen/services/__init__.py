"""Every write poimen makes goes through here: artifacts, ingest, refilter, thresholds, reviews,
accounts.

Keyword-only functions named <thing>_<action>, one module per job; import them from here.

May import: filter, poimen.agent, poimen.celery, poimen.db, poimen.decision, poimen.ledger,
poimen.models, poimen.readers, poimen.selectors, poimen.team.
"""

from poimen.services.accounts import (
    login_lockout_record,
    login_unlock,
    one_time_password_replaced,
    role_assign,
    user_add,
)
from poimen.services.artifacts import (
    ImportResult,
    RegisterResult,
    artifact_name_from_text,
    artifact_register,
    artifacts_import,
    manifest_export,
)
from poimen.services.bulk_reviews import (
    OverridesChanged,
    bulk_undone,
    reviews_bulk,
    reviews_bulk_undo,
)
from poimen.services.claims import ClaimResult, claims_release, record_hold, records_claim
from poimen.services.common import InputError
from poimen.services.disagreements import disagreement_settle
from poimen.services.export import (
    EXPORT_FIELD_NAMES,
    EXPORT_FIELDS,
    EXPORT_FORMATS,
    TEXT_FIELD,
    records_export,
    records_export_chunks,
)
from poimen.services.guidelines import GUIDELINES_MAX_CHARACTERS, guidelines_edit
from poimen.services.ingest import IngestResult, records_ingest
from poimen.services.kind_policies import (
    PolicyResult,
    check_min_shared,
    check_paste_words,
    kind_policy_change,
)
from poimen.services.queued import records_ingest_queued, records_refilter_queued
from poimen.services.refilter import RefilterResult, records_refilter
from poimen.services.reviews import (
    NOTE_MAX_LENGTH,
    NOTE_REQUIRED,
    UNCHECKED,
    NoteRequired,
    ReviewConflict,
    UndoRefused,
    note_required,
    review_note,
    review_record,
    review_undo,
)
from poimen.services.saved_filters import (
    saved_filter_delete,
    saved_filter_query,
    saved_filter_rename,
    saved_filter_save,
)
from poimen.services.second_review import (
    SecondReviewTaken,
    second_review_give,
    second_review_route,
)
from poimen.services.sources import shadow_sources, source_mode
from poimen.services.thresholds import (
    ThresholdBelowFloor,
    ThresholdResult,
    threshold_change,
    threshold_check,
    threshold_preview,
)
from poimen.services.verify import Offender, VerifyResult, derived_verify
from poimen.services.visits import overview_seen

__all__ = [
    "EXPORT_FIELDS",
    "EXPORT_FIELD_NAMES",
    "TEXT_FIELD",
    "EXPORT_FORMATS",
    "ImportResult",
    "IngestResult",
    "InputError",
    "Offender",
    "PolicyResult",
    "RefilterResult",
    "RegisterResult",
    "ThresholdBelowFloor",
    "ThresholdResult",
    "VerifyResult",
    "artifact_name_from_text",
    "artifact_register",
    "artifacts_import",
    "derived_verify",
    "kind_policy_change",
    "check_paste_words",
    "check_min_shared",
    "login_lockout_record",
    "login_unlock",
    "manifest_export",
    "records_export",
    "records_export_chunks",
    "records_ingest",
    "records_ingest_queued",
    "records_refilter",
    "records_refilter_queued",
    "NOTE_MAX_LENGTH",
    "NOTE_REQUIRED",
    "NoteRequired",
    "note_required",
    "review_note",
    "review_record",
    "saved_filter_query",
    "saved_filter_delete",
    "saved_filter_rename",
    "saved_filter_save",
    "GUIDELINES_MAX_CHARACTERS",
    "guidelines_edit",
    "review_undo",
    "UndoRefused",
    "OverridesChanged",
    "reviews_bulk",
    "reviews_bulk_undo",
    "bulk_undone",
    "ReviewConflict",
    "UNCHECKED",
    # the desk for a team
    "ClaimResult",
    "SecondReviewTaken",
    "claims_release",
    "disagreement_settle",
    "overview_seen",
    "record_hold",
    "records_claim",
    "second_review_give",
    "shadow_sources",
    "source_mode",
    "second_review_route",
    "one_time_password_replaced",
    "role_assign",
    "threshold_change",
    "threshold_preview",
    "threshold_check",
    "user_add",
]
