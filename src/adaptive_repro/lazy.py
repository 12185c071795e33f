"""Modules imported when first used, for the libraries that only some of a module's callers need: a job's start-up
pays only for what the job runs (benchmarks/startup.py measures it)."""

from __future__ import annotations

import importlib
from types import ModuleType


class LazyModule:
    """Stands for the module ``name`` and imports it on the first attribute access; each attribute, once looked up, is
    kept on this object, so later accesses cost what a module attribute costs.

    ``special = LazyModule("scipy.special")`` then ``special.ndtr(x)``: the same function as ``from scipy import
    special``, imported by the first call instead of by the importing module."""

    def __init__(self, name: str):
        self.__dict__["_lazy_name"] = name

    def module(self) -> ModuleType:
        """The module itself (imported now if it was not)."""
        return importlib.import_module(self._lazy_name)

    def __getattr__(self, attr: str):
        value = getattr(self.module(), attr)
        self.__dict__[attr] = value
        return value

    def __repr__(self) -> str:
        return f"<lazily imported module {self._lazy_name!r}>"
