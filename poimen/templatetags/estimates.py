"""How the tuning page shows an estimate from the reviewers' verdicts: the share, its 95%
interval and the verdicts it rests on, or a dash where no verdict bears on it."""

from django import template

register = template.Library()


@register.filter
def share(estimate, bound: str = "") -> str:
    """ "0.67 (0.21–0.94)", prefixed with `bound` ("at most") where the estimate is one; "—"
    without an estimate."""
    if estimate is None or estimate.value is None:
        return "—"
    prefix = f"{bound} " if bound else ""
    return f"{prefix}{estimate.value:.2f} ({estimate.low:.2f}–{estimate.high:.2f})"
