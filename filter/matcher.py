"""DerivedFilter: is this record a copy of an emitted artifact? Verdict and Match say why."""

from operator import itemgetter

import numpy as np

from filter import measure
from filter.align import MIN_ANCHORS, align_pairs
from filter.artifact_table import ArtifactTable
from filter.artifacts import ArtifactRecord
from filter.candidates import candidates, exact, pairs
from filter.decision import (
    DEFAULT_MIN_SHARED,
    DEFAULT_PASTE_FLOOR,
    DEFAULT_REPORT_FLOOR,
    DEFAULT_THRESHOLD,
    check_threshold,
)
from filter.errors import ShinglingMismatch
from filter.index import ShingleIndex, boilerplate_run
from filter.shingles import DEFAULT_PARAMS, ShingleParams, readable, texts_shingles
from filter.verdict import Verdict

_NONE = np.empty(0, dtype=np.uint32)


class DerivedFilter:
    """Checks records against every artifact added to it.

    thresholds: kind -> overlap a record must exceed to be derived (default_threshold else).
    min_shared: shared shingles a match needs before it counts (an int, or kind -> int with
    default_min_shared for the kinds not in it). The rule itself is filter.decision's.
    min_overlap: matches below it are not reported, and candidates that cannot reach it are
    not aligned at all, which keeps a check cheap however many artifacts share boilerplate.
    paste_words: a match with a passage of this many words is reported whatever its overlap
    (a pasted paragraph: filter.decide cuts it under a kind's paste_words, never below this).
    boilerplate_run: postings beyond which a shingle's entries are read only for the artifacts
    a record may match (None: filter.index.boilerplate_run of the artifacts held). A cost
    setting: no verdict depends on it.
    """

    def __init__(
        self,
        thresholds: dict[str, float] | None = None,
        default_threshold: float = DEFAULT_THRESHOLD,
        min_shared: int | dict[str, int] = DEFAULT_MIN_SHARED,
        default_min_shared: int = DEFAULT_MIN_SHARED,
        params: ShingleParams = DEFAULT_PARAMS,
        min_overlap: float = DEFAULT_REPORT_FLOOR,
        paste_words: int = DEFAULT_PASTE_FLOOR,
        boilerplate_run: int | None = None,
    ):
        self.default_threshold = check_threshold(default_threshold)
        self.thresholds = {
            kind: check_threshold(value, kind=kind) for kind, value in (thresholds or {}).items()
        }
        self.min_shared = min_shared
        self.default_min_shared = default_min_shared
        self.params = params
        self.min_overlap = min_overlap
        self.paste_words = paste_words
        if boilerplate_run is not None and (
            isinstance(boilerplate_run, bool)
            or not isinstance(boilerplate_run, int)
            or boilerplate_run < 0
        ):
            raise ValueError(
                f"boilerplate_run must be a whole number from 0 up, not {boilerplate_run!r}"
            )
        self.boilerplate_run = boilerplate_run
        self.artifacts = ArtifactTable()
        self._index = ShingleIndex()
        self._fewest_min_shared = 0

    def threshold_for(self, kind: str) -> float:
        return self.thresholds.get(kind, self.default_threshold)

    def min_shared_for(self, kind: str) -> int:
        if isinstance(self.min_shared, dict):
            return self.min_shared.get(kind, self.default_min_shared)
        return self.min_shared

    def __len__(self) -> int:
        return len(self.artifacts)

    @property
    def index_nbytes(self) -> int:
        return self._index.nbytes

    def add(self, artifact: ArtifactRecord, *, indexed: bool = True) -> ArtifactRecord:
        """Add an artifact; returns it as stored (re-shingled if it came under other params).
        indexed=False: its shingles are in an index given later (use_index), a store's."""
        if artifact.params != self.params:
            if artifact.has_text:
                artifact = artifact.reshingled(self.params)
            elif not readable(artifact.params, self.params):
                made_with = artifact.params or "unstated parameters"
                raise ShinglingMismatch(
                    f"{artifact.kind}/{artifact.name}: shingles made with {made_with}, this "
                    f"filter uses {self.params}, and there is no text to make them again"
                )
        if self.artifacts.holds(artifact.key):
            return artifact
        if indexed:
            self._index.add(len(self.artifacts), artifact.shingles)
        needed = max(MIN_ANCHORS, self.min_shared_for(artifact.kind))
        self.artifacts.append(artifact, needed)
        self._fewest_min_shared = min(self._fewest_min_shared or needed, needed)
        return artifact

    def copy(self, **settings) -> "DerivedFilter":
        """A filter holding the same artifacts, under the settings given (thresholds,
        default_threshold, min_shared, default_min_shared; the others as here): what a
        long-lived process moves to when artifacts are added or policies change, while
        checks under way keep this one. The two share the shingle index, which neither
        changes in place; only what is added to the copy is merged into it."""
        for name in (
            "thresholds",
            "default_threshold",
            "min_shared",
            "default_min_shared",
            "params",
            "min_overlap",
            "paste_words",
            "boilerplate_run",
        ):
            settings.setdefault(name, getattr(self, name))
        twin = DerivedFilter(**settings)
        twin._index = self._index.copy()
        if (twin.min_shared, twin.default_min_shared) == (self.min_shared, self.default_min_shared):
            # the same rule: the table shared, not copied (a million artifacts stay as cheap
            # to copy as ten)
            twin.artifacts = self.artifacts.copy()
            twin._fewest_min_shared = self._fewest_min_shared
            return twin
        twin.artifacts = self.artifacts.with_min_shared(
            lambda artifact, _: max(MIN_ANCHORS, twin.min_shared_for(artifact.kind))
        )
        needed = twin.artifacts.min_shared
        twin._fewest_min_shared = int(needed.min()) if len(needed) else 0
        return twin

    def use_index(self, index: ShingleIndex) -> "DerivedFilter":
        """Look up in `index` from now on: the segments of a store (filter/segment_store.py),
        numbered as the artifacts were added here."""
        self._index = index
        return self

    def prepare(self) -> "DerivedFilter":
        """Merge the artifacts added into the index now rather than on the first check: a
        filter that several threads check with must be prepared before it is shared."""
        self._index.merge()
        return self

    def check(self, text: str) -> Verdict:
        """check_many([text])[0], without the batch's bookkeeping: the API checks a record a
        call. Each step is check_many's for a batch of one."""
        shingles, _, (n_tokens,) = texts_shingles([text], self.params.k)
        if not self.artifacts or not len(shingles):
            return Verdict.unmatched(n_tokens)
        *anchors, left_out = self._index.lookup_distinctive(shingles, max_run=self._max_run())
        if len(left_out):
            slack = left_out.most_of_one().sum(keepdims=True)
            if slack[0] >= self._fewest_min_shared:
                anchors = left_out.put_back(anchors)
            else:
                # as in check_many: the artifacts that could be candidates with all of the
                # boilerplate counted for each, then their own boilerplate postings alone
                chosen = next(self._candidates(None, anchors[1], [n_tokens], slack), None)
                if chosen is None:
                    return Verdict.unmatched(n_tokens)
                anchors = left_out.put_back(anchors, only=chosen[1])
        for _, numbers in self._candidates(None, anchors[1], [n_tokens]):
            counts, passages = align_pairs(*anchors, numbers, self.params.k)
            found = measure.verdict_of_one(
                self, self.artifacts, numbers, counts, passages, n_tokens
            )
            if found is not None:
                return found
        return Verdict.unmatched(n_tokens)

    def check_many(self, texts: list[str]) -> list[Verdict]:
        """The verdict for each text, as check() gives it, for a fraction of the cost per text:
        the hashing, the first lookup and the choice of candidates run once for the batch."""
        shingles, firsts, n_tokens = texts_shingles(texts, self.params.k)
        if not self.artifacts or not len(shingles):
            return [Verdict.unmatched(n) for n in n_tokens]
        # Boilerplate's postings are set aside (LeftOut): read for the pairs chosen, or for
        # every artifact only where a record holds enough boilerplate to be a copy of it.
        query, artifact_no, artifact_pos, left_out = self._index.lookup_distinctive(
            shingles, max_run=self._max_run()
        )
        # whose record each shingle position is (the lookup keeps the shingles' order)
        owner_of = np.repeat(np.arange(len(texts)), np.diff(firsts))
        owner, left_owner = owner_of[query], owner_of[left_out.positions]
        # the most anchors a record's boilerplate can give any one artifact
        left_over = np.bincount(left_owner, left_out.most_of_one(), len(texts)).astype(np.int64)

        # A record with enough boilerplate to make a match of it alone may be a copy of that
        # boilerplate: of a skill kept in many versions, of a section a whole collection of
        # pages shares. Its candidates are chosen from all its anchors, all its postings
        # read. Any other record's are first chosen with all of its boilerplate counted for
        # each artifact (what none can exceed), then by each one's own (_aligned): the
        # candidates are those of all the record's anchors either way, whatever the index
        # counts as boilerplate, so a verdict does not depend on how many other artifacts
        # share a phrase.
        whole = left_over >= self._fewest_min_shared
        part = ~whole[owner]
        # (most batches have no such record: the anchors as they are, not a copy of them all)
        anchors_of = (owner, artifact_no) if not whole.any() else (owner[part], artifact_no[part])
        chosen = list(self._candidates(*anchors_of, n_tokens, left_over))
        if whole.any():
            every = left_out.where(whole[left_owner]).put_back((_NONE, _NONE, _NONE))[:2]
            anchors_of = (
                np.concatenate((owner[~part], owner_of[every[0]])),
                np.concatenate((artifact_no[~part], every[1])),
            )
            chosen += self._candidates(*anchors_of, n_tokens)
            chosen.sort(key=itemgetter(0))
        found = {}
        if chosen:
            lookup = (firsts, owner, query, artifact_no, artifact_pos, left_owner, left_out)
            partly = left_owner[~whole[left_owner]]
            aligned = self._aligned(chosen, n_tokens, lookup, partly)
            found = measure.verdicts(self, self.artifacts, *aligned, n_tokens)
        return [
            found[record] if record in found else Verdict.unmatched(n)
            for record, n in enumerate(n_tokens)
        ]

    def _aligned(self, chosen: list, n_tokens: list[int], lookup: tuple, partly) -> tuple:
        """The candidate pairs and their passages (pair_record, numbers, counts, passages, as
        filter.measure.verdicts reads them) of a batch's records from the pairs `chosen`
        ((record, [artifact numbers]), records ascending, each one's numbers ascending), its
        distinctive lookup and what it left out: each pair's own boilerplate entries found,
        the pairs of records chosen with all of their boilerplate counted for each (`partly`:
        whose each of their left-out shingles is) that do not reach their bound with their
        own dropped, every pair left aligned in one call. Of the boilerplate only the chosen
        pairs' entries: a binary search a candidate, not a million anchors for a stock phrase
        a million artifacts share."""
        firsts, owner, query, artifact_no, artifact_pos, left_owner, left_out = lookup
        n_artifacts = len(self.artifacts)
        pair_record, numbers, first, last = pairs(chosen, len(n_tokens))
        record_pos = query - firsts[owner]
        places = artifact_pos
        at, which, left_places = left_out.entries_of(first[left_owner], last[left_owner], numbers)
        if len(at):
            # each in its place among the distinctive anchors, as a record's own lookup gives
            # them: the alignment sorts anchors that come in record order fastest
            where = np.searchsorted(query, at)
            record_pos = np.insert(record_pos, where, at - firsts[pair_record[which]])
            owner = np.insert(owner, where, pair_record[which])
            artifact_no = np.insert(artifact_no, where, numbers[which])
            places = np.insert(places, where, left_places)
        if len(partly):
            chosen = exact(chosen, (owner, artifact_no), n_tokens, partly, self._candidates)
            pair_record, numbers, _, _ = pairs(chosen, len(n_tokens))
        # a pair is named by record * artifacts + artifact: align_pairs takes the anchors of
        # the pairs asked for and leaves the others (other records', other artifacts')
        pair_keys = pair_record * n_artifacts + numbers
        keys = owner * n_artifacts + artifact_no
        counts, passages = align_pairs(record_pos, keys, places, pair_keys.tolist(), self.params.k)
        return pair_record, numbers, counts, passages

    def _max_run(self) -> int:
        if self.boilerplate_run is not None:
            return self.boilerplate_run
        return boilerplate_run(len(self.artifacts))

    def _candidates(self, owner, artifact_no, n_tokens: list[int], slack=None):
        """filter.candidates.candidates under this filter's artifacts and min_overlap."""
        return candidates(self.artifacts, self.min_overlap, owner, artifact_no, n_tokens, slack)
