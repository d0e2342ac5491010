"""Cohen's kappa: how far two raters agree beyond what chance would give them. Pure Python."""

from collections import Counter
from collections.abc import Iterable


def cohen_kappa(pairs: Iterable[tuple[str, str]]) -> float | None:
    """Kappa over (rater A's label, rater B's label) pairs, one per item both rated:
    (p_o - p_e) / (1 - p_e), with p_o the share of items they agree on and p_e the agreement
    expected from each rater's own label frequencies.

    1 is perfect agreement, 0 what chance gives, below 0 worse than chance. None when it is
    undefined: no pairs, or no variance (both raters gave one and the same label throughout,
    so chance alone explains their agreement: p_e = 1)."""
    pairs = list(pairs)
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(1 for a, b in pairs if a == b) / n
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    expected = sum(first[label] * second[label] for label in first) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


# The normal quantile of a 95% interval.
Z = 1.96


def kappa_interval(pairs: Iterable[tuple[str, str]]) -> tuple[float, float] | None:
    """An approximate 95% interval for cohen_kappa over `pairs`: kappa ± z·SE with the large-
    sample SE sqrt(p_o (1 - p_o) / (n (1 - p_e)^2)) (Cohen 1960), clipped to [-1, 1]. None
    where kappa is undefined. On a handful of pairs it is wide, which is the point."""
    pairs = list(pairs)
    kappa = cohen_kappa(pairs)
    if kappa is None:
        return None
    n = len(pairs)
    observed = sum(1 for a, b in pairs if a == b) / n
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    expected = sum(first[label] * second[label] for label in first) / (n * n)
    error = (observed * (1 - observed) / (n * (1 - expected) ** 2)) ** 0.5
    return max(-1.0, kappa - Z * error), min(1.0, kappa + Z * error)
