"""Errors with the argument they concern, mapped to exit codes by the CLI (DESIGN contracts)."""

from __future__ import annotations


class BadInput(ValueError):
    """User input is invalid: CLI exit code 2. ``argument`` names what was wrong."""

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(f"{argument}: {message}")
        self.argument = argument
        self.message = message
