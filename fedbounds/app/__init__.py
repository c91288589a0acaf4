"""The application layer: the CLI, the report and the claim runner (on top of every other layer)."""
