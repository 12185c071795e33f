"""Registries of plug-ins: one per kind (holdout mechanism arm, Algorithm 1 calibration, data model, analyst, query,
engine), each mapping a config name to one registered object.

A plug-in is a small frozen dataclass implementing its kind's abstract base class (the written contract lives in
that base class's docstring), in the manner of Google's dp_accounting ``DpEvent`` classes. The config names a
plug-in by its ``name``; the workflow resolves names to objects once, when the validated config becomes specs, so
the runner only ever calls methods on objects and never branches on names.
"""

from __future__ import annotations

from typing import Generic, Iterable, Iterator, TypeVar

T = TypeVar("T")


def check_keys(block: dict, fields: set[str], key: str, context: str = "") -> None:
    """Refuse a resolved config block whose keys are not exactly ``fields`` (the spec's or plug-in's fields), naming
    the config ``key`` and the unknown and missing keys: no value may vanish between the schema and a spec."""
    unknown, missing = set(block) - set(fields), set(fields) - set(block)
    if unknown or missing:
        raise ValueError(f"config key '{key}': unknown keys {sorted(unknown)}, missing keys {sorted(missing)}"
                         + (f" {context}" if context else ""))


def _comparable(value):
    """A value as uniqueness compares it: a hex colour in lower case (#D55E00 is #d55e00), anything else as it is
    (matplotlib's markers "p" and "P" differ)."""
    return value.lower() if isinstance(value, str) and value.startswith("#") else value


class Registry(Generic[T]):
    """The registered plug-ins of one kind, by name (a name is registered once; lookups name what is allowed)."""

    def __init__(self, kind: str, base: type, members: Iterable[T] = (), unique: tuple[str, ...] = (),
                 choices: dict[str, tuple] | None = None):
        """``unique``: attributes no two members may share (e.g. an arm's colour and marker, which tell arms apart in
        every figure); ``choices``: for such an attribute, the values a plug-in may pick from (a clash lists those
        still free)."""
        if not kind:
            raise ValueError("a registry needs the name of its kind (e.g. 'mechanism')")
        self.kind = kind
        self.base = base
        self.unique = unique
        self.choices = dict(choices or {})
        self._members: dict[str, T] = {}
        for member in members:
            self.register(member)

    def register(self, member: T) -> T:
        """Add ``member`` under its ``name``; refuses another kind, an empty name, a name taken or a value of a
        ``unique`` attribute taken."""
        implements = (issubclass(member, self.base) if isinstance(member, type)  # a class: configured per use
                      else isinstance(member, self.base))
        if not implements:
            raise TypeError(f"{self.kind} {member!r} does not implement {self.base.__name__}")
        name = getattr(member, "name", "")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{self.kind} {member!r} has no name")
        if name in self._members:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        for attribute in self.unique:
            value = _comparable(getattr(member, attribute))
            owner = next((m.name for m in self._members.values() if _comparable(getattr(m, attribute)) == value), None)
            if owner is not None:
                raise ValueError(f"{self.kind}s {owner!r} and {name!r} have the same {attribute} {value!r}; each "
                                 f"{self.kind} has its own {attribute} ({self.free(attribute)})")
        self._members[name] = member
        return member

    def free(self, attribute: str) -> str:
        """In words, the values of a ``unique`` attribute still free (from ``choices``) or, without choices, those
        taken."""
        taken = [_comparable(getattr(m, attribute)) for m in self._members.values()]
        if attribute in self.choices:
            free = [c for c in self.choices[attribute] if _comparable(c) not in taken]
            return f"free: {' '.join(map(str, free)) or 'none'}"
        return f"taken: {' '.join(map(str, taken))}"

    def unregister(self, name: str) -> None:
        """Remove the plug-in called ``name`` (a test's throw-away plug-in, registered for one test)."""
        del self._members[name]

    def get(self, name: str, key: str = "") -> T:
        """The plug-in called ``name``; an unknown name is a ValueError naming the config ``key`` and the allowed
        names."""
        try:
            return self._members[name]
        except (KeyError, TypeError):
            where = f"config key '{key}': " if key else ""
            raise ValueError(f"{where}unknown {self.kind} {name!r}; allowed: {', '.join(self._members)}") from None

    def names(self) -> tuple[str, ...]:
        return tuple(self._members)

    def __contains__(self, name: object) -> bool:
        return name in self._members

    def __iter__(self) -> Iterator[T]:
        return iter(self._members.values())

    def __len__(self) -> int:
        return len(self._members)
