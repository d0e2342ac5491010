"""The derived rule has one definition (filter.decision) and three forms: the matcher's Python,
the SQL a threshold change applies (poimen.decision.derived_rule.derived_condition) and the arrays a
preview evaluates (DecisionTable.derived_at). On thousands of random records, with values on a
coarse grid so that ties with the threshold and with min_shared come up often, all three
must call the same records derived: by one match, by a kind's coverage, and by the coverage
across kinds (in force: the highest threshold and min_shared of the kinds involved), at the
thresholds stored and at every threshold a change of one kind could set."""

import random
from dataclasses import replace

import pytest

from filter import ArtifactRecord, DerivedFilter, MixedCoverage
from filter.decision import across_kinds
from filter.verdict import Match as FilterMatch
from poimen.decision.derived_rule import derived_condition
from poimen.decision.policies import Policies
from poimen.models import Artifact, IngestRun, KindPolicy, Match, Record
from poimen.selectors import caches_clear, decision_table

KINDS = ("skill", "reference", "doc")
CASES = 3000


def _grid(rng: random.Random) -> float:
    """Mostly steps of 0.05 (ties with thresholds on the same grid), sometimes anything."""
    return round(rng.randint(0, 20) * 0.05, 2) if rng.random() < 0.7 else rng.random()


def _case(rng: random.Random, artifacts: dict[str, list[Artifact]]) -> dict:
    """One record's stored decision inputs: a few matches and, per kind, its coverage."""
    matches = []
    for kind in KINDS:
        for artifact in rng.sample(artifacts[kind], rng.randint(0, 2)):
            matches.append((artifact, _grid(rng), rng.choice([0, 5, 19, 20, 21, 40, 80])))
    coverage = {}
    for kind in KINDS:
        if rng.random() < 0.5:
            coverage[kind] = {
                "coverage": _grid(rng),
                "artifacts": rng.randint(1, 3),
                "shared": rng.choice([10, 19, 20, 21, 60]),
            }
    mixed = {}
    involved = sorted({artifact.kind for artifact, _, _ in matches})
    if len(involved) >= 2 and rng.random() < 0.7:
        mixed = {
            "coverage": _grid(rng),
            "n_kinds": len(involved),
            "shared": rng.choice([10, 19, 20, 21, 29, 30, 31, 60]),
            "kinds": {kind: 1 for kind in involved},
        }
    return {"matches": matches, "coverage": coverage, "mixed": mixed}


def _python_form(case: dict, policies: Policies) -> bool:
    """What the matcher decides: its Match.exceeds, its stitched-coverage rule, and its
    MixedCoverage.exceeds at the thresholds in force across kinds as the matcher sets them."""
    from filter.decision import coverage_exceeds

    matcher = DerivedFilter(thresholds=policies.thresholds, min_shared=policies.min_shared)
    mixed = case["mixed"]
    if mixed:
        kinds = tuple(sorted(mixed["kinds"]))
        across = MixedCoverage(
            coverage=mixed["coverage"],
            kinds=kinds,
            shared=mixed["shared"],
            threshold=float(across_kinds(*(matcher.threshold_for(k) for k in kinds))),
            min_shared=int(across_kinds(*(matcher.min_shared_for(k) for k in kinds))),
        )
        if across.exceeds:
            return True

    for artifact, overlap, shared in case["matches"]:
        match = FilterMatch(
            artifact=ArtifactRecord.from_text(kind=artifact.kind, name=artifact.name, text="x"),
            overlap=overlap,
            threshold=policies.threshold_for(artifact.kind),
            artifact_containment=overlap,
            record_containment=overlap,
            shared=shared,
            min_shared=policies.min_shared_for(artifact.kind),
        )
        if match.exceeds:
            return True
    return any(
        coverage_exceeds(
            c["coverage"],
            c["artifacts"],
            c["shared"],
            threshold=policies.threshold_for(kind),
            min_shared=policies.min_shared_for(kind),
        )
        for kind, c in case["coverage"].items()
    )


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.django_db
def test_the_matcher_the_sql_and_the_preview_agree(seed):
    rng = random.Random(seed)
    for kind in KINDS:
        KindPolicy.objects.create(
            kind=kind,
            threshold=round(rng.randint(4, 19) * 0.05, 2),
            min_shared=rng.choice([10, 20, 30]),
        )
    policies = Policies.load()
    artifacts = {
        kind: [
            Artifact.objects.create(
                kind=kind,
                name=f"{kind}-{n}",
                sha256=f"{kind}{n}".ljust(64, "0"),
                shingle_normaliser="norm-v1",
                shingle_k=5,
                shingle_hash="xxh3-64",
                shingles=b"",
                emitted_at="2026-01-01T00:00:00Z",
            )
            for n in range(3)
        ]
        for kind in KINDS
    }
    run = IngestRun.objects.create(source="rule")
    cases = [_case(rng, artifacts) for _ in range(CASES)]
    expected = [_python_form(case, policies) for case in cases]
    records = Record.objects.bulk_create(
        Record(
            run=run,
            source="rule",
            external_id=str(n),
            text="t",
            sha256="0" * 64,
            coverage=case["coverage"],
            mixed_coverage=case["mixed"],
            derived=derived,
        )
        for n, (case, derived) in enumerate(zip(cases, expected, strict=True))
    )
    Match.objects.bulk_create(
        Match(
            record=record,
            artifact=artifact,
            overlap=overlap,
            artifact_containment=overlap,
            record_containment=overlap,
            shared=shared,
            threshold=policies.threshold_for(artifact.kind),
        )
        for record, case in zip(records, cases, strict=True)
        for artifact, overlap, shared in case["matches"]
    )
    derived_ids = {r.pk for r, derived in zip(records, expected, strict=True) if derived}
    assert 0.1 * CASES < len(derived_ids) < 0.9 * CASES  # both sides well represented
    # ... and so are the records only the coverage across kinds decides
    alone = [
        c
        for c, d in zip(cases, expected, strict=True)
        if d and not _python_form(c | {"mixed": {}}, policies)
    ]
    assert len(alone) > 0.01 * CASES

    in_sql = set(
        Record.objects.filter(derived_condition(policies, KINDS)).values_list("id", flat=True)
    )
    assert in_sql == derived_ids

    caches_clear()
    for kind in KINDS:
        table, _ = decision_table(kind)
        at_current = table.derived_at(policies.threshold_for(kind))
        assert set(table.ids[at_current].tolist()) == derived_ids & set(table.ids.tolist())
        # A record the table leaves out has nothing a threshold of this kind could decide.
        for record in Record.objects.exclude(pk__in=table.ids.tolist()):
            case = cases[int(record.external_id)]
            assert kind not in case["coverage"]
            assert kind not in case["mixed"].get("kinds", {})
            assert all(artifact.kind != kind for artifact, _, _ in case["matches"])
        # A change of this kind's threshold: the preview says what the SQL then says.
        for value in (0.2, 0.5, 0.65, 0.8, 0.95, 1.0, rng.random()):
            changed = replace(policies, thresholds={**policies.thresholds, kind: value})
            expected_then = {
                r.pk for r, case in zip(records, cases, strict=True) if _python_form(case, changed)
            }
            in_sql_then = set(
                Record.objects.filter(derived_condition(changed, KINDS)).values_list(
                    "id", flat=True
                )
            )
            assert in_sql_then == expected_then, (kind, value)
            preview = set(table.ids[table.derived_at(value)].tolist())
            assert preview == expected_then & set(table.ids.tolist()), (kind, value)
