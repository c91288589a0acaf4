"""Imported once by the pool's forkserver (:data:`.lifecycle.FORKSERVER_PRELOAD`): the modules
every worker needs and the claim and paper tables built, so that each worker forked from the
server starts warm (about 1.7 s of imports and discovery saved per worker). A failure here is
left to the workers, which meet it again and report it with their task."""

from __future__ import annotations

try:
    from fedbounds import registry
    from fedbounds.verify import catalog

    from . import figures, report, runner  # noqa: F401 - imported for the workers

    registry.papers()
    catalog.claims()
except Exception:  # noqa: BLE001, S110 - the workers report it
    pass
