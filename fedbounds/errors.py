"""Errors with the argument they concern, mapped to exit codes by the CLI (DESIGN contracts)."""

from __future__ import annotations


class BadInput(ValueError):
    """User input is invalid: CLI exit code 2. ``argument`` names what was wrong."""

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(f"{argument}: {message}")
        self.argument = argument
        self.message = message


def interrupts(error: BaseException) -> bool:
    """Whether ``error`` stops the process on the user's behalf (Ctrl-C, or a signal turned
    into an exception whose class sets ``interrupts = True``) and must not be reported as a
    bad plugin or theorem file."""
    return isinstance(error, KeyboardInterrupt) or getattr(type(error), "interrupts", False)


def foreign_code_error(error: BaseException) -> str:
    """What a user's or plugin's code raised (``SystemExit`` and other ``BaseException``
    included: a file that exits has not defined anything), as a message."""
    if isinstance(error, SystemExit):
        return f"it exited (SystemExit {error.code!r}) while being loaded"
    return f"{type(error).__name__}: {error}"
