"""poimen's data, a module per part: artifacts and their policies, ingested records and their
matches, the audit log, reviews, API tokens, sources in shadow mode, queued batches, a team's
claims and second reviews, saved filters, the review guidelines. Import them from here.

May import: poimen.db, poimen.ledger.
"""

from poimen.models.accounts import OneTimePassword
from poimen.models.api_tokens import ApiToken
from poimen.models.artifacts import (
    SHINGLE_DTYPE,
    Artifact,
    KindPolicy,
    ThresholdChange,
    default_min_shared,
    default_on_derived,
    default_threshold,
)
from poimen.models.events import AuditHead, Event, EventManager
from poimen.models.guidelines import GuidelinesVersion
from poimen.models.queued_batches import QueuedBatch
from poimen.models.records import IngestRun, Match, Record
from poimen.models.reviews import Review
from poimen.models.saved_filters import SavedFilter
from poimen.models.sources import ShadowSource
from poimen.models.team import Claim, OverviewVisit, SecondReview

__all__ = [
    "SHINGLE_DTYPE",
    "ApiToken",
    "Artifact",
    "AuditHead",
    "Claim",
    "Event",
    "EventManager",
    "GuidelinesVersion",
    "IngestRun",
    "KindPolicy",
    "OneTimePassword",
    "OverviewVisit",
    "Match",
    "QueuedBatch",
    "Record",
    "Review",
    "SavedFilter",
    "SecondReview",
    "ShadowSource",
    "ThresholdChange",
    "default_min_shared",
    "default_on_derived",
    "default_threshold",
]
