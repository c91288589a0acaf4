"""The registry loads and every theorem compiles."""

from fedbounds import engine, registry


def test_every_theorem_compiles() -> None:
    table = registry.theorems()
    assert "proxskip.thm3.1" in table
    for thm in table.values():
        c = engine.compiled(thm)
        assert len(c.conditions) == len(thm.conditions)
