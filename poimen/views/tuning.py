"""Threshold tuning: the kinds, and one kind's histogram, preview and change."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, QueryDict
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from poimen import selectors, services
from poimen.decision.policies import POLICY_VALUES
from poimen.forms import KindPolicyForm, ThresholdChangeForm, ThresholdPreviewForm
from poimen.selectors.charts import estimate_lines, histogram_chart
from poimen.views.common import render_page, require_tune


@require_GET
def tuning(request):
    require_tune(request)
    counts = {c.kind: c for c in selectors.kind_counts()}
    context = {"kinds": [(kind, counts.get(kind)) for kind in selectors.kinds_known()]}
    return render_page(request, "tuning.html", context)


@require_http_methods(["GET", "POST"])
def tuning_kind(request, kind: str):
    require_tune(request)
    if kind not in selectors.kinds_known():
        raise Http404("No such kind")
    current = selectors.threshold_for(kind)
    change_form = ThresholdChangeForm(request.POST or None)
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
                f"excluded, {result.redacted:,} newly redacted, {result.released:,} released "
                f"({result.moves_said()}), {result.kept_by_review:,} kept as reviewers judged "
                "them.",
            )
            return redirect("tuning_kind", kind=kind)

    raw_value = request.POST.get("value") if request.method == "POST" else request.GET.get("value")
    preview_form = ThresholdPreviewForm({"value": raw_value} if raw_value else None)
    preview = None
    if preview_form.is_bound and preview_form.is_valid():
        preview = services.threshold_preview(kind, preview_form.cleaned_data["value"])
    floor = selectors.report_floor()
    estimates = selectors.threshold_estimates(
        kind, also=(current,) + ((preview.value,) if preview else ())
    )
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
        "preview_error": " ".join(preview_form.errors.get("value", [])),
        "estimates": estimates,
        "estimate_lines": estimate_lines(estimates.rows),
        "preview_estimate": next(
            (row for row in estimates.rows if preview and row.threshold == preview.value), None
        ),
        "flips": selectors.threshold_flips(kind, preview.value) if preview else None,
        **_policy_context(request, kind),
        "changes": selectors.kind_changes(kind),
    }
    status = 400 if request.method == "POST" else 200
    return render_page(
        request,
        "tuning_kind.html",
        context,
        fragments=("content", "preview", "histogram", "estimates"),
        status=status,
    )


def _policy_context(request, kind: str) -> dict:
    """The policy form: as it stands, or, when a change was asked (the policy_* values in the
    query string), its dry run and a form that confirms it."""
    policy = selectors.policy_values(kind)
    asked = KindPolicyForm(request.GET) if "policy-reason" in request.GET else None
    if asked is None or not asked.is_valid():
        return {"policy_form": asked or KindPolicyForm(initial=policy), "policy": policy}
    values = {name: asked.cleaned_data[name] for name in POLICY_VALUES}
    dry_run = services.kind_policy_change(
        kind=kind, reason=asked.cleaned_data["reason"], dry_run=True, **values
    )
    confirm = KindPolicyForm(initial={**values, "reason": asked.cleaned_data["reason"]})
    confirm.fields["confirmed"].initial = True
    return {"policy_form": confirm, "policy": policy, "policy_preview": dry_run}


@require_POST
def tuning_policy(request, kind: str):
    """Set what a derived record of `kind` gets, its paste_words and min_shared (the service
    set_kind_policy calls): shown first as the change's dry run, applied once confirmed."""
    require_tune(request)
    if kind not in selectors.kinds_known():
        raise Http404("No such kind")
    form = KindPolicyForm(request.POST)
    if form.is_valid() and not form.cleaned_data["confirmed"]:
        query = QueryDict(mutable=True)
        query.update({f"policy-{k}": v for k, v in form.cleaned_data.items() if k != "confirmed"})
        return redirect(f"{reverse('tuning_kind', args=[kind])}?{query.urlencode()}#policy")
    if form.is_valid():
        try:
            result = services.kind_policy_change(
                kind=kind,
                reason=form.cleaned_data["reason"],
                actor=request.user,
                **{name: form.cleaned_data[name] for name in POLICY_VALUES},
            )
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            messages.success(
                request,
                f"{kind} policy: {result.old} → {result.new}: {result.moves_said()}; "
                f"{result.kept_by_review:,} kept as reviewers judged them.",
            )
    else:
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
    return redirect("tuning_kind", kind=kind)
