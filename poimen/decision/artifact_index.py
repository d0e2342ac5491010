"""The filter over the stored artifacts and policies, and the way back from its matches to rows."""

from collections.abc import Mapping
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q, QuerySet

from filter import DEFAULT_PARAMS, ArtifactRecord, DerivedFilter, ShinglingMismatch, readable
from poimen.decision.artifact_records import (
    artifact_from_record,
    artifact_params,
    artifact_to_record,
)
from poimen.decision.index_store import LIGHT_FIELDS, light_record, store_index
from poimen.decision.policies import Policies, report_floor
from poimen.models import Artifact


@dataclass
class ArtifactIndex:
    """A DerivedFilter holding the stored artifacts, their row ids, and the policies it used."""

    filter: DerivedFilter
    artifact_ids: dict[tuple[str, str, str], int]
    policies: Policies
    # with its shingles in a store (poimen/decision/index_store.py): each artifact number's row id
    # and sha256, appended to by the indexes made from this one (an index reads only its own)
    shared: tuple[list[int], list[str]] | None = None


# How an artifact without text gets this version's shingles: its text, which has the sha256
# it was registered with, fills in the stored row (poimen/services/artifacts.py).
REREGISTER = (
    "register each again with its text (`add_artifact FILE --kind KIND --name NAME`, or "
    "`import_artifacts` of its folder or of a manifest that holds its text)"
)


class ArtifactUnusable(Exception):
    """An artifact the filter can neither use nor re-shingle: matching without it is unsafe."""


@dataclass(frozen=True)
class StaleArtifacts:
    """The stored artifacts whose shingles are not this version's and that have no text to
    make them again: `readable` ones are matched as they stand (filter.readable), `unusable`
    ones stop the matcher (ArtifactUnusable). Artifacts with text are not here: the next
    index load makes their shingles again and stores them."""

    readable: list[str]
    unusable: list[str]

    def __bool__(self) -> bool:
        return bool(self.readable or self.unusable)

    def warning(self) -> str:
        """What an operator reads (commands, verify_derived, health): which artifacts, what it
        means, what to do."""
        return "\n".join(self.warning_lines())

    def warning_lines(self) -> list[str]:
        """warning() a paragraph a line (the overview shows them so)."""
        lines = []
        if self.readable:
            lines.append(
                f"{len(self.readable)} artifact(s) matched with shingles of an earlier "
                f"normaliser, made without text, so not made again with {DEFAULT_PARAMS}: "
                f"{', '.join(self.readable)}. Their copies are still found, a few shingles "
                f"fewer where the text has fullwidth markup or 'N:' line starts."
            )
        if self.unusable:
            lines.append(
                f"{len(self.unusable)} artifact(s) with shingles this version cannot match and "
                f"no text: {', '.join(self.unusable)}. Nothing is checked until they are fixed."
            )
        lines.append(f"To fix: {REREGISTER}.")
        return lines


def stale_artifacts() -> StaleArtifacts:
    """The stored artifacts without text whose shingles were made with other params (one
    query, on the rows that are not current)."""
    current = Q(
        shingle_normaliser=DEFAULT_PARAMS.normaliser,
        shingle_k=DEFAULT_PARAMS.k,
        shingle_hash=DEFAULT_PARAMS.hash,
    )
    rows = Artifact.objects.filter(text="").exclude(current).order_by("kind", "name", "pk")
    found = StaleArtifacts(readable=[], unusable=[])
    for artifact in rows.only("kind", "name", "shingle_normaliser", "shingle_k", "shingle_hash"):
        listed = found.readable if readable(artifact_params(artifact)) else found.unusable
        listed.append(f"{artifact.kind}/{artifact.name}")
    return found


def _filter_settings(policies: Policies) -> dict:
    """The DerivedFilter's settings under `policies`."""
    return {
        "thresholds": policies.thresholds,
        "default_threshold": policies.default_threshold,
        "min_shared": dict(policies.min_shared),
        # Kinds without a policy of their own take the app's defaults, not the library's.
        "default_min_shared": policies.default_min_shared,
    }


def artifact_index_load(
    *, kind: str | None = None, policies: Policies | None = None, up_to: int | None = None
) -> ArtifactIndex:
    """A filter holding every stored artifact (of `kind`, when given; of ids up to `up_to`,
    when given) and the stored policies (or `policies`, read by the caller)."""
    policies = policies or Policies.load()
    derived_filter = DerivedFilter(
        **_filter_settings(policies),
        min_overlap=report_floor(),
        paste_words=settings.POIMEN_PASTE_FLOOR,
    )
    artifacts = Artifact.objects.order_by("pk")
    if kind is not None:
        artifacts = artifacts.filter(kind=kind)
    if up_to is not None:
        artifacts = artifacts.filter(pk__lte=up_to)
    artifact_index = ArtifactIndex(filter=derived_filter, artifact_ids={}, policies=policies)
    _add_artifacts(artifact_index, artifacts)
    return artifact_index


def artifact_index_extend(
    artifact_index: ArtifactIndex, *, artifacts: QuerySet, policies: Policies
) -> ArtifactIndex:
    """A new index: `artifact_index`'s artifacts and `artifacts` (new rows), under `policies`.
    The shingles it holds already are not read or sorted again, and `artifact_index` itself
    is left as it was, for the checks still using it."""
    extended = artifact_index_under(artifact_index, policies)
    extended.artifact_ids = dict(artifact_index.artifact_ids)
    _add_artifacts(extended, artifacts.order_by("pk"))
    return extended


def artifact_index_under(artifact_index: ArtifactIndex, policies: Policies) -> ArtifactIndex:
    """A new index of `artifact_index`'s artifacts under `policies`, every setting of the
    filter they make (thresholds and min_shared), its shingles shared, not read again.
    `artifact_index` is left as it was, for the checks still using it."""
    if policies == artifact_index.policies:
        derived_filter = artifact_index.filter.copy()
    else:
        derived_filter = artifact_index.filter.copy(**_filter_settings(policies))
    return ArtifactIndex(
        filter=derived_filter,
        artifact_ids=artifact_index.artifact_ids,
        policies=policies,
        shared=artifact_index.shared,
    )


def artifact_index_shared(
    artifact_index: ArtifactIndex | None, *, artifacts: QuerySet, policies: Policies, store
) -> ArtifactIndex:
    """A new index of `artifact_index`'s artifacts (when given, one made by this function)
    and `artifacts` (rows with higher ids) under `policies`, its shingles looked up in `store`
    (filtering what it lacks into it first): the process reads each artifact's kind, name,
    sha256 and length, never its shingles or text."""
    if artifact_index is None:
        derived_filter = DerivedFilter(**_filter_settings(policies), min_overlap=report_floor())
        extended = ArtifactIndex(derived_filter, {}, policies, shared=([], []))
    else:
        extended = artifact_index_under(artifact_index, policies)
    pks, shas = extended.shared
    derived_filter = extended.filter
    for artifact in artifacts.only(*LIGHT_FIELDS).order_by("pk").iterator(chunk_size=2000):
        known = len(derived_filter.artifacts)
        derived_filter.add(light_record(artifact), indexed=False)
        if len(derived_filter.artifacts) > known:
            del pks[known:], shas[known:]  # what an abandoned refresh appended
            pks.append(artifact.pk)
            shas.append(artifact.sha256)
    count = len(derived_filter.artifacts)
    extended.artifact_ids = SharedArtifactIds(derived_filter.artifacts, pks)
    derived_filter.use_index(store_index(store, count, pks.__getitem__, shas.__getitem__))
    return extended


class SharedArtifactIds(Mapping):
    """artifact_ids of a shared index: the filter's own table and the row ids by number,
    both append-only and shared with the indexes made from it, so a refresh copies neither."""

    def __init__(self, table, pks: list[int]):
        self._table, self._pks, self._n = table, pks, len(table)

    def __getitem__(self, key):
        return self._pks[self._table.number_of(key)]

    def __iter__(self):
        return (artifact.key for artifact in self._table)

    def __len__(self) -> int:
        return self._n


def _add_artifacts(artifact_index: ArtifactIndex, artifacts: QuerySet) -> None:
    reshingled = []
    for artifact in artifacts.iterator(chunk_size=500):
        artifact_record = artifact_to_record(artifact)
        try:
            added = artifact_index.filter.add(artifact_record)
        except ShinglingMismatch as error:
            raise ArtifactUnusable(f"{error}; {REREGISTER}") from None
        if added.params != artifact_record.params:
            reshingled.append((artifact.pk, added))
        artifact_index.artifact_ids[(artifact.kind, artifact.name, artifact.sha256)] = artifact.pk
    _store_reshingled(reshingled)
    # Merged now, not on the first check: the index may be shared by threads from here on.
    artifact_index.filter.prepare()


def _store_reshingled(reshingled: list[tuple[int, ArtifactRecord]]) -> None:
    """Keep shingles the filter had to make again from the text (after the shingling
    parameters changed), so that it is done once, not on every run."""
    for pk, artifact_record in reshingled:
        fresh = artifact_from_record(artifact_record)
        Artifact.objects.filter(pk=pk).update(
            shingle_normaliser=fresh.shingle_normaliser,
            shingle_k=fresh.shingle_k,
            shingle_hash=fresh.shingle_hash,
            shingles=fresh.shingles,
            n_tokens=fresh.n_tokens,
        )
