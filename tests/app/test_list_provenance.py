"""`fedbounds list` shows whose prediction each claim is (issue: provenance of every verdict)."""

from __future__ import annotations

from typer.testing import CliRunner

from fedbounds.app.cli import app
from fedbounds.verify import catalog


def test_list_table_has_a_provenance_column() -> None:
    result = CliRunner().invoke(app, ["list"], env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip()
            for line in result.output.splitlines()
            if line.startswith("│") and line.count("│") >= 4}
    claims = catalog.claims()
    shown = {cid: rows[cid] for cid in claims if cid in rows}
    assert len(shown) == len(claims)
    assert all(shown[cid] == spec.provenance for cid, spec in claims.items())
    assert shown["fedsgda.p14"] == "conjecture"
