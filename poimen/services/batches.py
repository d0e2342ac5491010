"""What a batch of candidates is held against before it is written: the records stored
already (by source and id, or by their own identity under any label) and the policies in
force when it is written."""

from poimen.decision.artifact_index import ArtifactIndex, artifact_index_under
from poimen.decision.checked import Checked, check_texts
from poimen.decision.policies import Policies
from poimen.models import Record
from poimen.readers import Candidate
from poimen.selectors.record_keys import existing_record_keys


def stored_keys(batch: list[Candidate]) -> set:
    stored = existing_record_keys({(c.source, c.external_id) for c in batch})
    identities = {c.identity for c in batch if c.identity}
    if identities:
        found = Record.objects.filter(identity__in=identities).values_list("identity", flat=True)
        stored.update((None, identity) for identity in found)
    return stored


def checked_in_force(
    fresh, checked, artifact_index: ArtifactIndex
) -> tuple[list[Checked] | None, ArtifactIndex]:
    """`checked` (the batch checked with `artifact_index`) and `artifact_index`, or, when the
    policies changed since it was built (a threshold or a min_shared set while a run goes on,
    or between an API request's check and its write), the batch checked again and the index
    of the policies in force it was checked with: what is written is decided under them, and
    they stay locked until it is. `artifact_index` is left as it is: other checks (the next
    batches', another thread's) may be using it."""
    in_force = Policies.load(lock=True)
    if in_force == artifact_index.policies:
        return checked, artifact_index
    index_in_force = artifact_index_under(artifact_index, in_force)
    return check_texts(index_in_force.filter, [c.text for c in fresh]), index_in_force
