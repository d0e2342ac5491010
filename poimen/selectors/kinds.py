"""Which kinds there are, and the thresholds in force, as the desk shows them."""

from poimen.decision.policies import Policies
from poimen.models import Artifact


def kinds_known() -> list[str]:
    """Every kind with a policy or an artifact (artifacts are thousands, not millions)."""
    artifact_kinds = Artifact.objects.order_by().values_list("kind", flat=True).distinct()
    # The policies' kinds from Policies.load, which the page reads anyway (once a GET request).
    return sorted(set(artifact_kinds) | set(Policies.load().kinds))


def thresholds() -> dict[str, float]:
    """The thresholds of the kinds with a policy of their own."""
    return dict(Policies.load().thresholds)


def list_thresholds() -> dict:
    """What a list row needs to show its overlap against its kind's threshold."""
    policies = Policies.load()
    return {
        "thresholds": dict(policies.thresholds),
        "default_threshold": policies.default_threshold,
    }


def threshold_for(kind: str) -> float:
    return Policies.load().threshold_for(kind)


def policy_values(kind: str) -> dict:
    """`kind`'s policy values in force (on_derived, paste_words, min_shared), by name."""
    return Policies.load().values_for(kind)


def default_threshold() -> float:
    """The threshold of a kind without a policy of its own."""
    return Policies.load().default_threshold
