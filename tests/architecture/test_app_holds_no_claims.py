"""The application layer names no claim: schedules, warm-ups and pages find claims in the
catalog (and their costs in the store or the claims' own declarations), so nothing in
``fedbounds/app/`` is tuned by hand to one machine or one catalog."""

from __future__ import annotations

import re
from pathlib import Path

from fedbounds.verify import catalog

APP = Path(__file__).resolve().parents[2] / "fedbounds" / "app"


def test_no_claim_id_is_written_in_the_app_layer() -> None:
    ids = "|".join(re.escape(cid) for cid in catalog.claims())
    pattern = re.compile(rf"(?<![\w.])({ids})(?![\w])")
    found = [f"{path.name}:{n}: {line.strip()}" for path in sorted(APP.rglob("*"))
             if path.is_file() and path.suffix in (".py", ".j2")
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line)]
    assert not found, "\n".join(found)
