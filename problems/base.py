"""What every paper's problems module declares: :class:`ProblemEntry`, a named problem family
for ``fedbounds run --problem NAME`` (paper-specific instances live in ``problems/<paper>.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ProblemEntry:
    """A named problem family for ``fedbounds run --problem NAME --set k=v``.

    ``make(params, seed)`` returns the problem object; ``params`` maps each accepted parameter
    to (default, description)."""

    name: str
    paper: str
    description: str
    make: object  # Callable[[dict[str, float], int], object]
    params: dict[str, tuple[float, str]] = field(default_factory=dict)
