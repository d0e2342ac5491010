"""The review desk's pages. Thin: parse the request, call a selector or a service, render.

Every page is one template. Its fragments are inline partials of that template; when htmx asks
for one (the element it targets has the partial's name as id) the view renders just that
partial, otherwise the whole page, so every URL also works as a full page load.
"""

import csv
import json
from io import StringIO

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from poimen import selectors, services
from poimen.charts import histogram_chart
from poimen.forms import (
    FORMAT_CHOICES,
    AuditFilterForm,
    BulkVerdictForm,
    ListFilterForm,
    ThresholdChangeForm,
    ThresholdPreviewForm,
    VerdictForm,
    below_floor_message,
)
from poimen.models import Artifact, Record, Review

# A bulk verdict runs inside one request, a review and an event per record (about 0.5 ms each
# on PostgreSQL, written a thousand at a time): beyond this many, some ten seconds' work, the
# reviewer is asked to narrow the filters first.
BULK_LIMIT = 20_000
LISTS = {"exclusions": selectors.exclusion_list, "near_misses": selectors.near_miss_list}
# The filter parameters that travel with a record opened from a list (for j/k and "next").
LIST_PARAMS = [
    "q",
    "kind",
    "artifact",
    "overlap_min",
    "overlap_max",
    "verdict",
    "source",
    "run",
    "date_from",
    "date_to",
    "sort",
]


def can_tune(user) -> bool:
    """Threshold tuning needs the right to change a kind's policy."""
    return user.has_perm("poimen.tune_threshold") or user.has_perm("poimen.change_kindpolicy")


def can_review(user) -> bool:
    """Verdicts need the reviewers' permission; everyone logged in may read."""
    return user.has_perm("poimen.review_record")


def _require_review(request) -> None:
    if not can_review(request.user):
        raise PermissionDenied("Verdicts need the permission to review records.")


def render_page(request, template, context, *, fragments=("content",), status=200):
    """The whole page, or the one partial htmx targets (by the id of its element)."""
    if request.htmx and not request.htmx.history_restore_request:
        target = request.htmx.target
        name = target if target in fragments else "content"
        return render(request, f"{template}#{name}", context, status=status)
    return render(request, template, context, status=status)


def _safe_next(request, url: str, fallback: str) -> str:
    if url and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return fallback


def _list_query(request) -> str:
    """The list filters of this request as a query string, to carry to a record and back."""
    query = request.GET.copy()
    for key in list(query):
        if key not in LIST_PARAMS:
            del query[key]
    return query.urlencode()


# --- overview -------------------------------------------------------------------------------


@require_GET
def overview(request):
    counts = selectors.kind_counts()
    judged = sum(c.reviewed for c in counts)
    left = sum(c.unreviewed for c in counts)
    unfiltered = selectors.unfiltered_runs()
    context = {
        "totals": selectors.totals(),
        "counts": counts,
        "judged": judged,
        "left": left,
        "recent_runs": selectors.recent_runs(),
        "unchecked_runs": [run for run in unfiltered if run.refiltered is None],
        "refiltered_runs": [run for run in unfiltered if run.refiltered is not None],
        "floor": selectors.report_floor(),
    }
    return render_page(request, "overview.html", context, fragments=("content", "counts"))


# --- lists ------------------------------------------------------------------------------------


def _list_context(request, list_name: str):
    form = ListFilterForm(request.GET, with_verdict=list_name == "exclusions")
    filters = form.filters()
    queryset = LISTS[list_name](filters=filters)
    page = selectors.page_of(queryset, sort=filters.sort, cursor=request.GET.get("after", ""))
    return {
        "form": form,
        "filters": filters,
        "page": page,
        "list_name": list_name,
        "list_query": _list_query(request),
    }


@require_GET
def exclusions(request):
    context = _list_context(request, "exclusions")
    return render_page(request, "exclusions.html", context, fragments=("content", "results"))


@require_GET
def near_misses(request):
    context = _list_context(request, "near_misses")
    context["thresholds"] = selectors.thresholds()
    context["default_threshold"] = selectors.DEFAULT_THRESHOLD
    context["floor"] = selectors.report_floor()
    return render_page(request, "near_misses.html", context, fragments=("content", "results"))


@require_http_methods(["GET", "POST"])
def exclusions_bulk(request):
    """One verdict over the whole filtered set: a confirmation that says how many, then apply.

    The set is selected again on the server when the verdict is applied; if it no longer has
    the size the reviewer confirmed, they are asked again."""
    _require_review(request)
    form = ListFilterForm(request.GET)
    filters = form.filters()
    queryset = selectors.exclusion_list(filters=filters)
    count = queryset.count()
    bulk_form = BulkVerdictForm(
        request.POST or None,
        initial={
            "verdict": request.GET.get("bulk_verdict") or Review.Verdict.CONFIRMED,
            "expected": count,
        },
    )
    changed = False
    too_many = count > BULK_LIMIT
    # A filter that did not parse is left out, which widens the set: never judge that set.
    unclear = bool(form.errors)
    if request.method == "POST" and bulk_form.is_valid() and not too_many and not unclear:
        if bulk_form.cleaned_data["expected"] != count:
            changed = True
            bulk_form = BulkVerdictForm(
                initial={
                    "verdict": bulk_form.cleaned_data["verdict"],
                    "expected": count,
                    "note": bulk_form.cleaned_data["note"],
                }
            )
        else:
            applied = services.reviews_bulk(
                records=queryset,
                verdict=bulk_form.cleaned_data["verdict"],
                note=bulk_form.cleaned_data["note"],
                actor=request.user,
            )
            label = Review.Verdict(bulk_form.cleaned_data["verdict"]).label
            messages.success(request, f"{applied:,} records marked {label}.")
            return redirect(f"{reverse('exclusions')}?{_list_query(request)}")
    context = {
        "form": form,
        "bulk_form": bulk_form,
        "count": count,
        "changed": changed,
        "too_many": too_many,
        "unclear": unclear,
        "bulk_limit": BULK_LIMIT,
        "list_query": _list_query(request),
    }
    status = 400 if request.method == "POST" and not changed else 200
    return render_page(request, "exclusions_bulk.html", context, status=status)


EXPORT_FIELDS = [
    "id",
    "external_id",
    "source",
    "status",
    "derived",
    "kind",
    "artifact",
    "overlap",
    "verdict",
    "run",
    "created_at",
]


def _export_row(record: Record) -> dict:
    artifact = record.best_artifact
    return {
        "id": record.pk,
        "external_id": record.external_id,
        "source": record.source,
        "status": record.status,
        "derived": record.derived,
        "kind": artifact.kind if artifact else None,
        "artifact": artifact.name if artifact else None,
        "overlap": round(record.best_overlap, 4),
        "verdict": record.review.verdict if record.review else None,
        "run": record.run_id,
        "created_at": record.created_at.isoformat(),
    }


def _spreadsheet_safe(value):
    """Record fields come from transcripts: a cell starting like a formula is quoted, so a
    spreadsheet opening the export shows it instead of running it."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _csv_lines(records):
    buffer = StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EXPORT_FIELDS)
    writer.writeheader()
    for record in records:
        writer.writerow({k: _spreadsheet_safe(v) for k, v in _export_row(record).items()})
        if buffer.tell() > 64 * 1024:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def _jsonl_lines(records):
    for record in records:
        yield json.dumps(_export_row(record)) + "\n"


@require_GET
def export(request):
    """The filtered list as CSV or JSONL: first a page saying how many rows, then the file."""
    list_name = request.GET.get("list", "exclusions")
    if list_name not in LISTS:
        raise Http404("No such list")
    form = ListFilterForm(request.GET, with_verdict=list_name == "exclusions")
    queryset = LISTS[list_name](filters=form.filters())
    file_format = request.GET.get("format", "csv")
    if file_format not in dict(FORMAT_CHOICES):
        file_format = "csv"
    # A filter that did not parse would widen the file: say so instead of downloading.
    if request.GET.get("download") and not form.errors:
        rows = selectors.export_rows(queryset)
        if file_format == "jsonl":
            response = StreamingHttpResponse(_jsonl_lines(rows), content_type="application/jsonl")
        else:
            response = StreamingHttpResponse(_csv_lines(rows), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="poimen-{list_name}.{file_format}"'
        return response
    context = {
        "form": form,
        "count": queryset.count(),
        "list_name": list_name,
        "list_query": _list_query(request),
        "formats": FORMAT_CHOICES,
        "fields": EXPORT_FIELDS,
    }
    status = 400 if request.GET.get("download") else 200
    return render_page(request, "export.html", context, status=status)


# --- records ----------------------------------------------------------------------------------


@require_GET
def record(request, record_id: int):
    try:
        record = selectors.record_detail(record_id)
    except Record.DoesNotExist:
        raise Http404("No such record") from None
    matches = selectors.record_matches(record)
    shown = matches[0] if matches else None
    wanted = request.GET.get("match")
    if wanted:
        shown = next((m for m in matches if str(m.pk) == wanted), shown)
    passages = selectors.passages_for(record, shown.artifact) if shown else []

    list_name = request.GET.get("list", "")
    previous_id = next_id = None
    list_query = _list_query(request)
    if list_name in LISTS:
        filters = ListFilterForm(request.GET, with_verdict=list_name == "exclusions").filters()
        previous_id, next_id = selectors.neighbours(
            LISTS[list_name](filters=filters), record, sort=filters.sort
        )
    context_query = (
        "&".join(filter(None, [f"list={list_name}", list_query])) if list_name in LISTS else ""
    )
    context = {
        "record": record,
        "matches": matches,
        "shown": shown,
        "passages": passages,
        "threshold_now": selectors.threshold_for(shown.artifact.kind) if shown else None,
        "events": selectors.record_events(record),
        "verdict_form": VerdictForm(),
        "last_verdict": _last_verdict(request, record),
        "list_name": list_name,
        "context_query": context_query,
        "previous_id": previous_id,
        "next_id": next_id,
        # Back to the list the record was opened from; opened from elsewhere, there is none.
        "back_url": (
            "?".join(filter(None, [reverse(list_name), list_query])) if list_name in LISTS else ""
        ),
    }
    return render_page(request, "record.html", context, fragments=("content", "comparison"))


def _last_verdict(request, record: Record) -> int | None:
    """The record judged just before this page, if it still has a verdict to undo."""
    last = request.session.get("last_verdict")
    if not last or last == record.pk:
        return None
    return Record.objects.filter(pk=last, review__isnull=False).values_list("pk", flat=True).first()


def _after_verdict(request, record: Record, message: str):
    """htmx from a list row: the row again. Otherwise on to `next` (the following record)."""
    row = request.POST.get("row", "")
    if request.htmx and row in LISTS:
        context = {"row": selectors.list_row(record.pk), "list_name": row, "list_query": ""}
        return render(request, "_list_row.html", context)
    messages.success(request, message)
    # The next page offers to undo this (u), so a mis-key costs one more key.
    request.session["last_verdict"] = record.pk if "undo" not in request.path else None
    fallback = reverse("record", args=[record.pk])
    return redirect(_safe_next(request, request.POST.get("next", ""), fallback))


@require_POST
def record_review(request, record_id: int):
    _require_review(request)
    record = get_object_or_404(Record, pk=record_id)
    form = VerdictForm(request.POST)
    if not form.is_valid():
        return HttpResponse("That verdict is not one of the choices.", status=400)
    verdict = form.cleaned_data["verdict"]
    try:
        services.review_record(
            record=record, verdict=verdict, note=form.cleaned_data["note"], actor=request.user
        )
    except ValidationError as error:
        if request.htmx:
            return HttpResponse(" ".join(error.messages), status=400)
        messages.error(request, " ".join(error.messages))
        return redirect(reverse("record", args=[record.pk]))
    label = Review.Verdict(verdict).label
    return _after_verdict(request, record, f"Record #{record.pk}: {label}.")


@require_POST
def record_undo(request, record_id: int):
    _require_review(request)
    record = get_object_or_404(Record, pk=record_id)
    try:
        services.review_undo(record=record, actor=request.user)
    except ValidationError as error:
        if request.htmx:
            return HttpResponse(" ".join(error.messages), status=400)
        messages.error(request, " ".join(error.messages))
        return redirect(reverse("record", args=[record.pk]))
    return _after_verdict(request, record, f"Record #{record.pk}: verdict undone.")


# --- artifacts, runs, audit -------------------------------------------------------------------


@require_GET
def artifacts(request):
    kind = request.GET.get("kind", "")
    kinds = selectors.kinds_known()
    if kind not in kinds:
        kind = ""
    context = {"rows": selectors.artifact_list(kind=kind), "kinds": kinds, "kind": kind}
    return render_page(request, "artifacts.html", context, fragments=("content", "results"))


@require_GET
def artifact(request, artifact_id: int):
    artifact = get_object_or_404(Artifact.objects.defer("shingles"), pk=artifact_id)
    count, capped = selectors.artifact_match_count(artifact)
    context = {
        "artifact": artifact,
        "matches": selectors.artifact_matches(artifact),
        "match_count": count,
        "match_count_capped": capped,
        "threshold": selectors.threshold_for(artifact.kind),
    }
    return render_page(request, "artifact.html", context)


@require_GET
def runs(request):
    return render_page(request, "runs.html", {"runs": selectors.run_list()[:200]})


@require_GET
def audit(request):
    form = AuditFilterForm(request.GET)
    queryset = selectors.audit_list(filters=form.filters())
    page = selectors.audit_page(queryset, cursor=request.GET.get("after", ""))
    context = {"form": form, "page": page}
    return render_page(request, "audit.html", context, fragments=("content", "results"))


# --- threshold tuning -------------------------------------------------------------------------


@require_GET
def tuning(request):
    if not can_tune(request.user):
        raise PermissionDenied("Tuning thresholds needs the permission to change kind policies.")
    counts = {c.kind: c for c in selectors.kind_counts()}
    context = {"kinds": [(kind, counts.get(kind)) for kind in selectors.kinds_known()]}
    return render_page(request, "tuning.html", context)


@require_http_methods(["GET", "POST"])
def tuning_kind(request, kind: str):
    if not can_tune(request.user):
        raise PermissionDenied("Tuning thresholds needs the permission to change kind policies.")
    if kind not in selectors.kinds_known():
        raise Http404("No such kind")
    current = selectors.threshold_for(kind)
    floor = selectors.report_floor()
    change_form = ThresholdChangeForm(request.POST or None, floor=floor)
    if request.method == "POST" and change_form.is_valid():
        value = change_form.cleaned_data["value"]
        try:
            result = services.threshold_change(
                kind=kind,
                value=value,
                reason=change_form.cleaned_data["reason"],
                actor=request.user,
            )
        except ValidationError as error:
            change_form.add_error("value", " ".join(error.messages))
        else:
            messages.success(
                request,
                f"Threshold for {kind}: {current:g} → {value:g}. {result.excluded:,} newly "
                f"excluded, {result.released:,} released, {result.kept_by_review:,} kept as "
                "reviewers judged them.",
            )
            return redirect("tuning_kind", kind=kind)

    raw_value = request.POST.get("value") if request.method == "POST" else request.GET.get("value")
    preview_form = ThresholdPreviewForm(
        {"value": raw_value} if raw_value else None, initial_value=current
    )
    preview = None
    preview_error = ""
    if preview_form.is_bound and preview_form.is_valid():
        value = preview_form.cleaned_data["value"]
        if value < floor:
            preview_error = below_floor_message(value, floor)
        else:
            preview = selectors.threshold_preview(kind, value)
    elif preview_form.is_bound:
        preview_error = "Type a number between 0 and 1."
    log_scale = request.GET.get("scale") == "log"
    context = {
        "kind": kind,
        "current": current,
        "floor": floor,
        "histogram": histogram_chart(
            selectors.overlap_histogram(kind),
            threshold=current,
            floor=floor,
            proposed=preview.value if preview else None,
            log_scale=log_scale,
        ),
        "log_scale": log_scale,
        "preview_form": preview_form,
        "change_form": change_form,
        "preview": preview,
        "preview_error": preview_error,
        "changes": selectors.threshold_changes(kind),
    }
    status = 400 if request.method == "POST" else 200
    return render_page(
        request,
        "tuning_kind.html",
        context,
        fragments=("content", "preview", "histogram"),
        status=status,
    )
