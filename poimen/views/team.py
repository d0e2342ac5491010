"""The desk for a team: claiming the next batch of a list and releasing it, the blind second
review, the disagreements to settle, and how the reviewers agree."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from poimen import selectors, services
from poimen.models import Review, SecondReview
from poimen.team import team_rules
from poimen.team.verdicts import verdicts_fitting
from poimen.views.common import (
    LISTS,
    can_review,
    list_form,
    list_query,
    list_url,
    render_page,
    require_review,
    safe_next,
)
from poimen.views.record import record_context

# The review mode's parameter that keeps it to the reviewer's own claimed batch.
CLAIMED = "claimed"


def list_claims_context(request, rows: list) -> dict:
    """What a list shows of claims: "claimed by X" on `rows` (marked in place), and beside its
    actions the batch size and the reviewer's own claims."""
    mine = selectors.claims_shown(rows, request.user if can_review(request.user) else None)
    if mine is None:
        return {}
    return {"claim_size": team_rules.claim_batch_size(), "my_claims": mine}


def review_pool(request, listed):
    """Review mode's records: none another reviewer holds; only the reviewer's own batch
    when the URL says claimed=mine. Returns (queryset, the one its progress counts, the
    parameter to keep in its links)."""
    mine_only = request.GET.get(CLAIMED) == "mine"
    pool = selectors.review_pool(listed, request.user, mine_only=mine_only)
    counted = selectors.review_pool(listed, request.user, mine_only=mine_only, counting=True)
    return pool, counted, f"{CLAIMED}=mine" if mine_only else ""


@require_POST
def claim(request):
    """Claim the next batch of the list and filters in the query string, then review it."""
    require_review(request)
    list_name = request.GET.get("list", "exclusions")
    if list_name not in LISTS:
        raise Http404("No such list")
    form = list_form(request, list_name)
    query = list_query(request)
    if form.errors:  # a filter left out would widen the set: claim nothing
        messages.error(request, "Fix the filters first: a claim takes the set they describe.")
        return redirect(list_url(list_name, query))
    result = services.records_claim(
        records=LISTS[list_name](filters=form.filters()),
        actor=request.user,
        filters_described=form.described(),
    )
    if not result.record_ids:
        messages.info(request, "Nothing left to claim here: every record is judged or held.")
        return redirect(list_url(list_name, query))
    count = len(result.record_ids)
    messages.success(
        request,
        f"{count} record{'s' if count != 1 else ''} claimed for you until "
        f"{result.expires_at.astimezone():%H:%M}.",
    )
    review = "&".join(filter(None, [f"list={list_name}", query, f"{CLAIMED}=mine"]))
    return redirect(f"{reverse('review')}?{review}")


@require_POST
def claims_release(request):
    """Give back every record the reviewer holds (judged ones stay judged)."""
    require_review(request)
    released = services.claims_release(actor=request.user)
    if released:
        messages.success(request, f"{released} claim{'s' if released != 1 else ''} released.")
    else:
        messages.info(request, "You held no records.")
    return redirect(safe_next(request, request.POST.get("next", ""), reverse("team")))


@require_GET
def team(request):
    """Who holds what, and the team's queues: second reviews waiting, disagreements."""
    context = {
        "holders": selectors.claim_holders(),
        "counts": selectors.team_counts(request.user),
        "band": team_rules.second_review_band(),
        "share": team_rules.second_review_share(),
        "claim_size": team_rules.claim_batch_size(),
        "claim_minutes": int(team_rules.claim_duration().total_seconds() // 60),
        "my_claims": selectors.my_claims(request.user) if can_review(request.user) else None,
    }
    return render_page(request, "team.html", context)


@require_GET
def second_review(request):
    """The next record waiting for a second verdict, shown blind: as the filter left it, with
    no verdict, history or reviewer on it."""
    require_review(request)
    waiting = selectors.second_reviews_waiting(request.user)
    second = waiting.first()
    context = {"waiting": waiting.count(), "second": second}
    if second is not None:
        record = selectors.blind_record(second.record_id)
        context.update(record_context(request, record, "", neighbours=False))
        context["offered"] = verdicts_fitting(record)
    return render_page(request, "team_second.html", context)


@require_POST
def second_review_give(request, second_id: int):
    require_review(request)
    second = get_object_or_404(SecondReview, pk=second_id)
    verdict = request.POST.get("verdict", "")
    try:
        given = services.second_review_give(second=second, verdict=verdict, actor=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        # Once theirs is given, the reviewer may know the first verdict and where it goes.
        first = given.first_review.verdict
        outcome = (
            "you disagree: it waits in the disagreements queue"
            if team_rules.disagree(first, given.verdict)
            else "you agree"
        )
        messages.success(
            request,
            f"Record #{given.record_id}: your verdict, {given.get_verdict_display()}; the "
            f"first was {Review.Verdict(first).label}, so {outcome}.",
        )
    return redirect(reverse("second_review"))


@require_GET
def disagreements(request):
    """Records whose two verdicts differ, to settle; and agreement per pair and per reviewer."""
    page = selectors.page_by_id(selectors.disagreements(), cursor=request.GET.get("after", ""))
    context = {
        "page": page,
        "agreement": selectors.agreement(),
        "verdicts": Review.Verdict.choices,
        "settled": list(selectors.disagreements(settled=True)[:10]),
    }
    for second in page.items:
        second.fitting = verdicts_fitting(team_rules.as_the_filter_left_it(second.record))
    return render_page(request, "team_disagreements.html", context)


@require_POST
def disagreement_settle(request, second_id: int):
    require_review(request)
    second = get_object_or_404(SecondReview, pk=second_id)
    verdict = request.POST.get("verdict", "")
    try:
        services.disagreement_settle(
            second=second,
            verdict=verdict,
            actor=request.user,
            note=request.POST.get("note", "")[:2000],
        )
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        label = Review.Verdict(verdict).label
        messages.success(request, f"Record #{second.record_id}: settled as {label}.")
    return redirect(safe_next(request, request.POST.get("next", ""), reverse("disagreements")))
