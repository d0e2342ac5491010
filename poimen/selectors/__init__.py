"""Reads the review desk needs, a module per page or job; querysets or plain data, no writes.

Built for 10^6 records: lists page by keyset (never OFFSET) and count exactly through covering
indexes, the audit log counts up to COUNT_CAP, and the aggregates over whole tables are cached
under keys that change whenever the data does (selectors.cache; `caches_clear()` forgets them
all).

The public names are gathered here, so a view asks `selectors.exclusion_list(...)`.

May import: filter, poimen.db, poimen.decision, poimen.models, poimen.team, poimen.web.
"""

from poimen.decision.policies import report_floor
from poimen.selectors.api import api_artifact, api_artifacts, api_record, api_record_matches
from poimen.selectors.artifacts import (
    artifact_ids_named,
    artifact_list,
    artifact_match_count,
    artifact_matches,
    artifact_names,
)
from poimen.selectors.audit import AuditFilters, audit_list, audit_page, bulks_undone
from poimen.selectors.bulk import (
    CHOOSE_SHOWN,
    CHOSEN_MAX,
    SAMPLE_MAX,
    SAMPLE_SIZES,
    ColleagueVerdicts,
    bulk_choices,
    bulk_chosen,
    bulk_sample,
    colleague_verdicts,
)
from poimen.selectors.cache import caches_clear, data_version, decision_version
from poimen.selectors.changes import (
    Changes,
    CheckResult,
    ExclusionsOverTime,
    Waiting,
    changes_since,
    exclusions_over_time,
    last_checks,
    waiting_for,
)
from poimen.selectors.common import (
    COUNT_CAP,
    PAGE_SIZE,
    SNIPPET_CHARS,
    SNIPPET_LEAD,
    UNREVIEWED,
    VERDICTS,
)
from poimen.selectors.copies import Copy, record_copies
from poimen.selectors.estimates import (
    Estimate,
    Estimates,
    Flips,
    ThresholdEstimate,
    threshold_estimates,
    threshold_flips,
)
from poimen.selectors.guidelines import (
    guidelines_current,
    guidelines_history,
    guidelines_version,
)
from poimen.selectors.heatmap import HeatMap, PartCopies, artifact_heatmap, part_copies
from poimen.selectors.kinds import (
    default_threshold,
    kinds_known,
    list_thresholds,
    policy_values,
    threshold_for,
    thresholds,
)
from poimen.selectors.lists import (
    ListFilters,
    exclusion_list,
    export_rows,
    list_neighbours,
    list_row,
    near_miss_list,
)
from poimen.selectors.overview import KindCounts, kind_counts, totals
from poimen.selectors.paging import (
    Page,
    Progress,
    capped_count,
    list_counts,
    neighbours,
    next_unreviewed,
    page_by_id,
    page_of,
)
from poimen.selectors.passages import MarkedPassage, is_boilerplate, passages_for
from poimen.selectors.records import (
    for_detail,
    latest_own_verdict,
    record_across_kinds,
    record_detail,
    record_events,
    record_matches,
)
from poimen.selectors.runs import (
    recent_runs,
    run_list,
    runs_for_filter,
    shadow_source_list,
    unfiltered_runs,
    with_queue_progress,
)
from poimen.selectors.saved_filters import saved_filter_of, saved_filters_of
from poimen.selectors.team import (
    Agreement,
    ClaimHolder,
    MyClaims,
    TeamCounts,
    agreement,
    blind_record,
    claim_holders,
    claims_shown,
    disagreements,
    my_claims,
    review_pool,
    second_review_next,
    second_reviews_waiting,
    team_counts,
)
from poimen.selectors.tuning import (
    DecisionTable,
    Histogram,
    PreviewSample,
    ThresholdPreview,
    decision_table,
    kind_changes,
    overlap_histogram,
    threshold_changes,
    threshold_preview,
)

__all__ = [
    "COUNT_CAP",
    "PAGE_SIZE",
    "SNIPPET_CHARS",
    "SNIPPET_LEAD",
    "UNREVIEWED",
    "VERDICTS",
    "AuditFilters",
    "DecisionTable",
    "Histogram",
    "KindCounts",
    "ListFilters",
    "MarkedPassage",
    "Page",
    "PreviewSample",
    "ThresholdPreview",
    "api_artifact",
    "api_artifacts",
    "api_record",
    "api_record_matches",
    "artifact_ids_named",
    "artifact_list",
    "artifact_names",
    "artifact_match_count",
    "artifact_matches",
    "audit_list",
    "audit_page",
    "bulks_undone",
    "caches_clear",
    "capped_count",
    "data_version",
    "decision_table",
    "decision_version",
    "default_threshold",
    "exclusion_list",
    "export_rows",
    "is_boilerplate",
    "kind_counts",
    "kinds_known",
    "list_neighbours",
    "latest_own_verdict",
    "list_row",
    "list_thresholds",
    "near_miss_list",
    "neighbours",
    "overlap_histogram",
    "page_by_id",
    "page_of",
    "passages_for",
    "recent_runs",
    "record_across_kinds",
    "for_detail",
    "record_detail",
    "record_events",
    "record_matches",
    "report_floor",
    "list_counts",
    "saved_filter_of",
    "saved_filters_of",
    "CHOOSE_SHOWN",
    "CHOSEN_MAX",
    "bulk_choices",
    "bulk_chosen",
    "Copy",
    "record_copies",
    "guidelines_current",
    "guidelines_history",
    "guidelines_version",
    "next_unreviewed",
    "Progress",
    "run_list",
    "runs_for_filter",
    "shadow_source_list",
    "threshold_changes",
    "kind_changes",
    "policy_values",
    "threshold_for",
    "threshold_preview",
    "thresholds",
    "totals",
    "unfiltered_runs",
    "with_queue_progress",
    # the verdicts on tuning (estimates), the artifact's heat map (heatmap)
    "Estimate",
    "Estimates",
    "Flips",
    "ThresholdEstimate",
    "threshold_estimates",
    "threshold_flips",
    "HeatMap",
    "PartCopies",
    "artifact_heatmap",
    "part_copies",
    # the overview: what changed, what waits, exclusions over time, the checks
    "Changes",
    "CheckResult",
    "ExclusionsOverTime",
    "Waiting",
    "changes_since",
    "exclusions_over_time",
    "last_checks",
    "waiting_for",
    # what a bulk verdict overrides
    "ColleagueVerdicts",
    "SAMPLE_MAX",
    "SAMPLE_SIZES",
    "bulk_sample",
    "colleague_verdicts",
    # the desk for a team
    "Agreement",
    "ClaimHolder",
    "MyClaims",
    "TeamCounts",
    "agreement",
    "blind_record",
    "claim_holders",
    "claims_shown",
    "disagreements",
    "my_claims",
    "review_pool",
    "second_review_next",
    "second_reviews_waiting",
    "team_counts",
]
