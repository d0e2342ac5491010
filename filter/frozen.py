"""Frozen, slotted dataclasses whose construction costs what a plain one's does.

A frozen dataclass's __init__ stores each field through object.__setattr__ (its own
__setattr__ refuses), several times the cost of an assignment; a check of a thousand records
makes thousands of Matches. `frozen_record` is dataclass(frozen=True, slots=True) with an
__init__ of the same signature, written from the same fields, that stores each field through
its slot's descriptor: one home for the fields (the class body), and an instance as frozen as
before (assigning to it raises FrozenInstanceError). tests/filter/test_frozen.py holds the
two __init__s to the same signature and the same instances.
"""

import dataclasses


class _Factory:
    """A default_factory field's default (as dataclasses shows it): call the factory."""

    def __repr__(self) -> str:
        return "<factory>"


_NO_VALUE = _Factory()


def frozen_record(cls):
    """cls as a frozen, slotted dataclass with a faster __init__ (see the module)."""
    cls = dataclasses.dataclass(frozen=True, slots=True)(cls)
    fields = dataclasses.fields(cls)
    if hasattr(cls, "__post_init__") or any(f.kw_only or not f.init for f in fields):
        raise TypeError(f"frozen_record: {cls.__name__} needs the plain dataclass __init__")
    namespace = {"_NO_VALUE": _NO_VALUE}
    parameters, stores = [], []
    for field in fields:
        name = field.name
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__
        value = name
        if field.default is not dataclasses.MISSING:
            namespace[f"_default_{name}"] = field.default
            parameters.append(f"{name}=_default_{name}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{name}"] = field.default_factory
            parameters.append(f"{name}=_NO_VALUE")
            value = f"_factory_{name}() if {name} is _NO_VALUE else {name}"
        else:
            parameters.append(name)
        stores.append(f"    _set_{name}(self, {value})")
    source = f"def __init__(self, {', '.join(parameters)}):\n" + "\n".join(stores)
    exec(source, namespace)  # as dataclasses writes its own __init__
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)
    cls.__init__ = init
    return cls
