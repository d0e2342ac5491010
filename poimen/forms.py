"""The review desk's forms: they parse query strings and posts; selectors and services do the rest.

Filter forms never fail a page: a value that does not parse is dropped (and shown as an error
beside its field), so a hand-edited or stale bookmark still opens.
"""

from datetime import date

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from poimen.models import Event, KindPolicy, Record, Review, SavedFilter
from poimen.selectors import (
    AuditFilters,
    ListFilters,
    artifact_ids_named,
    kinds_known,
    runs_for_filter,
)
from poimen.services import (
    NOTE_MAX_LENGTH,
    UNCHECKED,
    check_min_shared,
    check_paste_words,
    threshold_check,
)

VERDICT_FILTER_CHOICES = [
    ("", "any verdict"),
    ("unreviewed", "not reviewed"),
    (Review.Verdict.CONFIRMED, "confirmed"),
    (Review.Verdict.FALSE_NEGATIVE, "false negative (excluded by a reviewer)"),
    (Review.Verdict.FALSE_POSITIVE, "false positive (released)"),
]
DECISION_FILTER_CHOICES = [
    ("", "excluded or redacted"),
    (Record.Status.EXCLUDED, "excluded whole"),
    (Record.Status.REDACTED, "redacted (copied passages cut)"),
]
SORT_CHOICES = [
    ("overlap", "highest overlap first"),
    ("closeness", "nearest the threshold first"),
    ("time", "newest first"),
    ("artifact", "by artifact"),
]
# The largest id a database holds (a 64-bit signed integer): a bigger number is a form error,
# not a value handed to the database (SQLite raises OverflowError on it).
MAX_ID = 2**63 - 1
# The days a date filter may name. Beyond them a day is a form error, not a value the
# selectors turn into a time (9999-12-31 plus the day it covers overflows).
FIRST_DAY, LAST_DAY = date(1970, 1, 1), date(2999, 12, 31)


class DayField(forms.DateField):
    """A day of a filter, from FIRST_DAY to LAST_DAY, entered with the browser's date picker."""

    widget = forms.DateInput(attrs={"type": "date"})

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)
        self.widget.attrs.update(min=FIRST_DAY.isoformat(), max=LAST_DAY.isoformat())
        self.validators += [
            MinValueValidator(FIRST_DAY, f"a day from {FIRST_DAY} on"),
            MaxValueValidator(LAST_DAY, f"a day until {LAST_DAY} at the latest"),
        ]


class ListFilterForm(forms.Form):
    """The filters of the exclusions and near-miss lists, all from the URL."""

    q = forms.CharField(required=False, max_length=200, label="Search text")
    kind = forms.ChoiceField(required=False)
    # An artifact's name (every version of it), "kind:name", or its id; completed from the
    # names the desk knows (artifact_names).
    artifact = forms.CharField(required=False, max_length=310, label="Artifact")
    overlap_min = forms.FloatField(required=False, min_value=0, max_value=1, label="Overlap from")
    overlap_max = forms.FloatField(required=False, min_value=0, max_value=1, label="to")
    verdict = forms.ChoiceField(required=False, choices=VERDICT_FILTER_CHOICES)
    # The reasons are Review.Reason's (their one home), a false positive's alone.
    reason = forms.ChoiceField(
        required=False, choices=[("", "any reason"), *Review.Reason.choices], label="Reason"
    )
    decision = forms.ChoiceField(required=False, choices=DECISION_FILTER_CHOICES)
    source = forms.CharField(required=False, max_length=255)
    run = forms.TypedChoiceField(required=False, coerce=int, empty_value=None)
    date_from = DayField(label="Ingested from")
    date_to = DayField(label="until")
    sort = forms.ChoiceField(required=False, choices=SORT_CHOICES)

    # How a filter reads in a sentence, where its label alone ("to") would not say it.
    DESCRIBED_AS = {
        "q": "text containing",
        "overlap_min": "overlap at least",
        "overlap_max": "overlap at most",
        "date_to": "ingested until",
        "reason": "released as false positive because",
    }

    def __init__(self, data=None, *, with_verdict: bool = True):
        super().__init__(data)
        self.fields["kind"].choices = [("", "any kind")] + [(k, k) for k in kinds_known()]
        self.fields["run"].choices = [("", "any run")] + [
            (
                run.pk,
                f"#{run.pk} {run.source}{'' if run.filtered else ' (unfiltered)'}"
                f"{' (shadow)' if run.shadow else ''}",
            )
            for run in runs_for_filter()
        ]
        if not with_verdict:
            del self.fields["verdict"]
            del self.fields["decision"]
        # Placeholders that cannot be read as values already set.
        for name, placeholder in (("overlap_min", "min"), ("overlap_max", "max")):
            self.fields[name].widget.attrs.update(step="0.01", placeholder=placeholder)
        self.fields["q"].widget = forms.TextInput(
            attrs={
                "type": "search",
                "placeholder": "words in the record",
                "data-search": "",
                "class": "search-field",
            }
        )
        self.fields["artifact"].widget.attrs.update(
            placeholder="any artifact", list="artifact-names", autocomplete="off"
        )
        self.fields["source"].widget.attrs.update(placeholder="any source")

    def clean_artifact(self) -> tuple[int, ...]:
        """The ids of the artifact named (all its versions), or of the id given."""
        value = self.cleaned_data["artifact"].strip()
        if not value:
            return ()
        if value.isdigit():
            if not 1 <= int(value) <= MAX_ID:
                raise forms.ValidationError(f"no artifact has the id {value}")
            return (int(value),)
        ids = artifact_ids_named(value)
        if not ids:
            raise forms.ValidationError(f"no artifact is named {value!r}")
        return ids

    def clean(self):
        data = super().clean()
        verdict = data.get("verdict")
        if data.get("reason") and verdict not in (None, "", Review.Verdict.FALSE_POSITIVE):
            self.add_error(
                "reason",
                "only a false positive has a reason: choose the verdict “false positive” or "
                "any verdict",
            )
        return data

    def described(self) -> str:
        """The filters in force, in words: "kind skill · verdict not reviewed · search “x”"."""
        parts = []
        for name, value in vars(self.filters()).items():
            if value in (None, "", ()) or name == "sort":
                continue
            field = self.fields[name]
            if isinstance(field, forms.ChoiceField):
                value = dict(field.choices).get(value, value)
            elif name == "artifact":
                value = self.data.get("artifact", "").strip()
            elif name == "q":
                value = f"“{value}”"
            label = self.DESCRIBED_AS.get(name) or field.label or name.replace("_", " ")
            parts.append(f"{label.lower()} {value}")
        return " · ".join(parts) or "no filters (every record of the list)"

    def filters(self) -> ListFilters:
        """The valid part of the input as selector filters (invalid fields are left out)."""
        self.is_valid()
        values = {
            name: self.cleaned_data.get(name)
            for name in self.fields
            if name not in self.errors and self.cleaned_data.get(name) not in (None, "")
        }
        return ListFilters(**values)


class SeenReviewForm(forms.Form):
    """The verdict in force when the reviewer looked: the id of the review, 0 for none. Sent
    with every verdict and undo from the desk, so the later of two racing verdicts is told."""

    seen = forms.IntegerField(required=False, min_value=0, max_value=MAX_ID)

    def seen_review_id(self):
        """The review id seen, None for none; UNCHECKED when the post did not say."""
        if self.cleaned_data.get("seen") is None:
            return UNCHECKED
        return self.cleaned_data["seen"] or None


class VerdictForm(SeenReviewForm):
    """A verdict; a reason alone (its own button and key) is a false positive for it."""

    verdict = forms.ChoiceField(required=False, choices=Review.Verdict.choices)
    reason = forms.ChoiceField(required=False, choices=Review.Reason.choices)
    note = forms.CharField(
        required=False, max_length=NOTE_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 2})
    )

    def clean(self):
        data = super().clean()
        if data.get("reason") and not data.get("verdict"):
            data["verdict"] = Review.Verdict.FALSE_POSITIVE
        if not data.get("verdict"):
            raise forms.ValidationError("That verdict is not one of the choices.")
        return data


class NoteForm(SeenReviewForm):
    """The note of the verdict in force, added or changed later (from a list row, the record
    view or the review mode); empty clears it, unless the verdict's reason needs one."""

    note = forms.CharField(
        required=False,
        max_length=NOTE_MAX_LENGTH,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class SavedFilterForm(forms.Form):
    """A name for the filters shown, to save them (or to rename a saved filter)."""

    name = forms.CharField(
        max_length=SavedFilter._meta.get_field("name").max_length,
        label="Name",
        error_messages={"required": "Give the filters a name to save them under."},
        widget=forms.TextInput(attrs={"placeholder": "e.g. skills to release"}),
    )


class BulkVerdictForm(forms.Form):
    verdict = forms.ChoiceField(
        choices=[
            (Review.Verdict.CONFIRMED, "confirm the exclusions"),
            (Review.Verdict.FALSE_POSITIVE, "mark false positive (release to evidence)"),
        ]
    )
    note = forms.CharField(
        required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )
    expected = forms.IntegerField(min_value=0, max_value=MAX_ID, widget=forms.HiddenInput)
    # How many records carry a colleague's verdict, as the reviewer was told; and whether they
    # confirmed overriding them (the second question, asked only when there are some).
    overrides_expected = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_ID, widget=forms.HiddenInput
    )
    overrides_confirmed = forms.BooleanField(required=False, widget=forms.HiddenInput)


class AuditFilterForm(forms.Form):
    type = forms.ChoiceField(required=False, choices=[("", "any type"), *Event.Type.choices])
    kind = forms.ChoiceField(required=False)
    actor = forms.CharField(required=False, max_length=150, label="Actor (user name)")
    date_from = DayField(label="From")
    date_to = DayField(label="until")

    def __init__(self, data=None):
        super().__init__(data)
        self.fields["kind"].choices = [("", "any kind")] + [(k, k) for k in kinds_known()]

    def filters(self) -> AuditFilters:
        self.is_valid()
        values = {
            name: self.cleaned_data.get(name)
            for name in self.fields
            if name not in self.errors and self.cleaned_data.get(name) not in (None, "")
        }
        return AuditFilters(**values)


class KindPolicyForm(forms.Form):
    """What a derived record of a kind gets, with the reason the audit log keeps."""

    prefix = "policy"  # it shares the tuning page with the threshold form

    on_derived = forms.ChoiceField(
        choices=KindPolicy.OnDerived.choices, widget=forms.RadioSelect, label="A derived record"
    )
    paste_words = forms.CharField(
        label="Cut a copied passage of at least this many words, whatever the record's overlap"
    )
    min_shared = forms.CharField(label="A match shares at least this many shingles")
    reason = forms.CharField(
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "why this policy"}),
        error_messages={"required": "Say why: the reason goes into the audit log."},
    )
    # Set by the preview's confirmation: without it, saving shows what would move first.
    confirmed = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def clean_paste_words(self):
        return check_paste_words(self.cleaned_data["paste_words"])

    def clean_min_shared(self):
        return check_min_shared(self.cleaned_data["min_shared"])


class ThresholdPreviewForm(forms.Form):
    """A threshold to preview: the value, cleaned by the one threshold rule (threshold_check)."""

    value = forms.CharField(label="New threshold")

    def clean_value(self):
        return threshold_check(self.cleaned_data["value"])


class ThresholdChangeForm(ThresholdPreviewForm):
    """A threshold to save, with the reason the audit log keeps."""

    reason = forms.CharField(
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2, "placeholder": "why this threshold"}),
        error_messages={"required": "Say why: the reason goes into the audit log."},
    )
