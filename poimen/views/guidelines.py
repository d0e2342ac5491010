"""The review guidelines: every reviewer reads them (with the false-positive reasons'
definitions); admins edit them, each save a new version and an event."""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from poimen import selectors, services
from poimen.models import GuidelinesVersion, Review
from poimen.models.reviews import REASON_DEFINITIONS
from poimen.services import InputError
from poimen.views.common import can_tune, render_page


class GuidelinesForm(forms.Form):
    text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 20}),
        max_length=services.GUIDELINES_MAX_CHARACTERS,
        strip=False,
    )
    note = forms.CharField(
        required=False,
        max_length=GuidelinesVersion._meta.get_field("note").max_length,
        label="What changed (optional)",
    )


def _reasons() -> list[tuple[str, str]]:
    return [
        (Review.Reason(value).label, definition) for value, definition in REASON_DEFINITIONS.items()
    ]


@require_GET
def guidelines(request):
    """The guidelines in force (or a past version, ?version=), the reasons, the history."""
    current = selectors.guidelines_current()
    shown = current
    wanted = request.GET.get("version", "")
    if wanted:
        try:
            shown = selectors.guidelines_version(int(wanted))
        except (ValueError, GuidelinesVersion.DoesNotExist):
            raise Http404("No such version of the guidelines") from None
    context = {
        "shown": shown,
        "current": current,
        "history": selectors.guidelines_history(),
        "reasons": _reasons(),
        "can_edit": can_tune(request.user),
    }
    return render_page(request, "guidelines.html", context)


@require_http_methods(["GET", "POST"])
def guidelines_edit(request):
    if not can_tune(request.user):
        raise PermissionDenied("Editing the guidelines is for admins (who may tune thresholds).")
    current = selectors.guidelines_current()
    if request.method == "POST":
        form = GuidelinesForm(request.POST)
        if form.is_valid():
            try:
                version = services.guidelines_edit(
                    actor=request.user,
                    text=form.cleaned_data["text"],
                    note=form.cleaned_data["note"],
                )
            except InputError as error:
                form.add_error("text", error.messages[0])
            else:
                messages.success(request, f"Guidelines saved (version {version.pk}).")
                return redirect(reverse("guidelines"))
    else:
        form = GuidelinesForm(initial={"text": current.text if current else ""})
    return render_page(request, "guidelines_edit.html", {"form": form, "current": current})
