"""What every paper's problems module declares: :class:`ProblemEntry`, a named problem family
for ``fedbounds run --problem NAME`` (paper-specific instances live in ``problems/<paper>.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fedbounds.params import Param, check_values

# (numbers the instance holds, work to build it): the run boundary checks both against its caps
# before ``make`` allocates anything (fedbounds.params.DEFAULT_MAX_WORK)
Footprint = Callable[[Mapping[str, Any]], tuple[float, float]]


@dataclass(frozen=True)
class ProblemEntry:
    """A named problem family for ``fedbounds run --problem NAME --set k=v``.

    ``params`` declares each accepted parameter as a :class:`~fedbounds.params.Param` (kind,
    domain, default, meaning); :meth:`values` validates the given ones once and
    ``make(values, seed)`` returns the problem object. ``footprint(values)`` estimates the
    numbers the instance holds and the work to build it, so that a too large instance is
    refused before it is allocated. A plugin's legacy ``(default, description)`` pair is read
    as a real parameter without limits."""

    name: str
    paper: str
    description: str
    make: Callable[[dict[str, Any], int], Any]
    params: Mapping[str, Param] = field(default_factory=dict)
    footprint: Footprint | None = None

    def __post_init__(self) -> None:
        declared = {k: p if isinstance(p, Param) else Param(p[0], str(p[1]) or k)
                    for k, p in self.params.items()}
        object.__setattr__(self, "params", declared)

    def values(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every declared parameter: the validated given value or its declared default; an
        unknown name or a value outside its domain is refused naming ``--set NAME``."""
        return check_values(self.params, given, self.name)

    def size(self, values: Mapping[str, Any]) -> tuple[float, float]:
        """(numbers held, work to build) of the instance at ``values`` (0, 0 if undeclared)."""
        return self.footprint(values) if self.footprint is not None else (0.0, 0.0)

    def size_parameter(self, values: Mapping[str, Any]) -> str | None:
        """The integer parameter furthest above its default (the one to lower when the
        instance is too large), or None without integer parameters."""
        sizes = {k: values[k] / max(p.default, 1) for k, p in self.params.items()
                 if p.kind is int and isinstance(p.default, int) and values.get(k) is not None}
        return max(sizes, key=sizes.get) if sizes else None
