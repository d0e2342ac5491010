"""filter.frozen.frozen_record: the faster __init__ takes what dataclass's own takes and makes
the same instance, and the instance stays frozen. No database."""

import dataclasses
import inspect

import pytest

from filter.frozen import frozen_record
from filter.verdict import Match, MixedCoverage, Verdict


def plain_twin(cls):
    """The same fields as a plain frozen, slotted dataclass: dataclass's own __init__."""
    return dataclasses.make_dataclass(
        cls.__name__,
        [
            (
                f.name,
                f.type,
                dataclasses.field(default=f.default, default_factory=f.default_factory),
            )
            for f in dataclasses.fields(cls)
        ],
        frozen=True,
        slots=True,
    )


def fields_of(instance):
    return {f.name: getattr(instance, f.name) for f in dataclasses.fields(instance)}


@pytest.mark.parametrize("cls", [Match, MixedCoverage, Verdict])
def test_the_init_takes_what_dataclasses_init_takes(cls):
    # names, order, kinds, annotations and defaults (a factory's shown as "<factory>")
    ours = inspect.signature(cls.__init__)
    assert str(ours) == str(inspect.signature(plain_twin(cls).__init__))


@pytest.mark.parametrize("cls", [Match, MixedCoverage, Verdict])
def test_the_same_arguments_make_the_same_instance_and_it_stays_frozen(cls):
    twin = plain_twin(cls)
    required = [
        f
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    values = {f.name: (f.name, len(f.name)) for f in dataclasses.fields(cls)}
    by_position = cls(*values.values())
    by_name = cls(**values)
    least = cls(**{f.name: values[f.name] for f in required})
    assert fields_of(by_position) == fields_of(by_name) == fields_of(twin(**values))
    assert fields_of(least) == fields_of(twin(**{f.name: values[f.name] for f in required}))
    assert by_position == by_name and hash(by_position) == hash(by_name)
    with pytest.raises(dataclasses.FrozenInstanceError):
        by_name.__setattr__(required[0].name, None)
    assert not hasattr(by_name, "__dict__")


def test_a_default_factory_gives_each_instance_its_own():
    one, other = Verdict(derived=False, matches=[]), Verdict(derived=False, matches=[])
    assert one.coverage == {} and one.coverage is not other.coverage


def test_a_class_it_cannot_serve_is_refused():
    class Later:
        value: int

        def __post_init__(self):
            pass

    with pytest.raises(TypeError, match="Later"):
        frozen_record(Later)
