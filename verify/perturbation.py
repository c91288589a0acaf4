"""Perturbations that test the experiment, not only the rule.

A claim's ``perturb`` (overrides under which it must be ``refuted``) often moves only the
prediction or a threshold: that shows the rule can say "refuted" — a *rule test*. A
:class:`Plant` changes the experiment itself or plants a wrong theory in it (a wrong constant
in the encoded bound, a wrong rate, an instance outside the theorem's assumptions, a broken
algorithm) and must give ``refuted`` too: it shows the experiment would notice a wrong theory.
The contract test runs every claim's plants (``tests/contract/test_claims.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Plant:
    """An experiment-level perturbation: ``overrides`` of the claim's parameters under which
    its verdict must be ``refuted``; ``why`` says what wrong theory or changed experiment it
    plants (shown on the claim's section of the report)."""

    overrides: Mapping[str, Any] = field(default_factory=dict)
    why: str = ""

    def __post_init__(self) -> None:
        if not self.overrides:
            raise ValueError("Plant: give the overrides that plant the wrong theory")
        if not self.why.strip():
            raise ValueError(f"Plant{dict(self.overrides)}: say what it plants (why=...)")

    @property
    def words(self) -> str:
        """The plant in words, for the report."""
        sets = ", ".join(f"{k} = {v!r}" for k, v in self.overrides.items())
        return f"{sets}: {self.why}"
