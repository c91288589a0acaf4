"""Confidence bands in the report's figures: a measurement's ``bands`` (label → (x, lower,
upper)) reach its verdict's figure, are drawn as a filled region (in the colour of the series
they belong to), and survive the result store; a figure stored before bands existed still
loads, and a figure without bands keeps its JSON (and so its stored rendering's key)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fedbounds.app import figures, store
from fedbounds.verify.claim import Figure, FigureSpec, Interval, Measurement, claim, evaluate

ROUNDS = [1, 2, 4, 8, 16]
MEANS = [1.0, 0.5, 0.26, 0.12, 0.07]
LOWER = [0.8, 0.4, 0.2, 0.1, 0.05]
UPPER = [1.2, 0.6, 0.3, 0.15, 0.09]


def _figure(bands: dict | None = None, logy: bool = True) -> Figure:
    return Figure("mean over replicas", "round t", "‖x_t‖²", {"mean": (ROUNDS, MEANS)},
                  logx=True, logy=logy, hlines={"predicted": 0.1}, bands=bands or {})


def _filled_paths(svg: str) -> list[str]:
    """The style of every filled, translucent shape (a shaded region: a path, or the use of a
    collection's path) of an SVG."""
    return [style for style in re.findall(r'<(?:path|use) [^>]*style="([^"]*)"', svg)
            if "fill-opacity" in style and "fill: none" not in style]


@pytest.mark.parametrize("logy", [True, False])
def test_bands_are_drawn_as_filled_regions(tmp_path: Path, logy: bool) -> None:
    plain, banded = tmp_path / "plain.svg", tmp_path / "banded.svg"
    figures.render_svg(_figure(logy=logy), plain)
    figures.render_svg(_figure({"mean": (ROUNDS, LOWER, UPPER)}, logy=logy), banded)
    plain_svg, banded_svg = plain.read_text(), banded.read_text()
    assert "PolyCollection" not in plain_svg and not _filled_paths(plain_svg)
    assert "PolyCollection" in banded_svg
    fills = _filled_paths(banded_svg)
    # the band of "mean" in the colour of the "mean" line (the first palette colour)
    assert any(f"fill: {figures.OKABE_ITO[0].lower()}" in style for style in fills), fills


def test_a_band_of_no_series_gets_its_own_colour_and_name(tmp_path: Path) -> None:
    path = tmp_path / "other.svg"
    figures.render_svg(_figure({"prediction ± 10%": (ROUNDS, [0.09] * 5, [0.11] * 5)}), path)
    fills = _filled_paths(path.read_text())
    assert any(f"fill: {figures.OKABE_ITO[1].lower()}" in style for style in fills), fills


def test_a_band_with_missing_ends_and_unsorted_x_renders(tmp_path: Path) -> None:
    """An infinite interval end is stored as null: the band leaves a gap there; x given out of
    order is drawn in order (one region, not a folded one)."""
    path = tmp_path / "gaps.svg"
    band = ([4, 1, 2, 8, 16], [0.2, None, 0.4, 0.1, 0.05], [0.3, 1.2, 0.6, 0.15, None])
    stored = store.figure_from_json(store.figure_json(_figure({"mean": band}, logy=False)))
    assert stored.bands["mean"] == band
    figures.render_svg(stored, path)
    assert _filled_paths(path.read_text())


def test_store_round_trips_bands() -> None:
    fig = _figure({"mean": (ROUNDS, LOWER, UPPER)})
    back = store.figure_from_json(store.figure_json(fig))
    assert back.bands == {"mean": (ROUNDS, LOWER, UPPER)}
    assert back.series == {"mean": (ROUNDS, MEANS)} and back.hlines == {"predicted": 0.1}
    assert store.figure_key(back, "r") == store.figure_key(fig, "r")
    assert store.figure_key(fig, "r") != store.figure_key(_figure(), "r")


def test_a_figure_stored_without_bands_loads() -> None:
    old = {"title": "t", "xlabel": "x", "ylabel": "y", "series": {"s": [[0, 1], [1.0, 2.0]]},
           "logx": False, "logy": True, "hlines": {}, "kind": "line"}  # as stored before bands
    back = store.figure_from_json(json.dumps(old))
    assert back.bands == {} and back.series == {"s": ([0, 1], [1.0, 2.0])}
    # a figure without bands writes exactly those keys again: its stored SVG stays valid
    assert json.loads(store.figure_json(back)) == old


def test_measurement_bands_reach_the_verdicts_figure() -> None:
    @claim("proxskip.p995", title="mean rate", prediction="rate 0.5", source="test",
           provenance="conjecture", rule=Interval(0.5, 0.1),
           figure=FigureSpec("mean", "round", "x"))
    def measure(params, seed):
        return Measurement(0.5, (0.45, 0.55), series={"mean": (ROUNDS, MEANS)},
                           bands={"mean": (ROUNDS, LOWER, UPPER)})

    verdict = evaluate(measure)
    assert verdict.verdict == "confirmed"
    assert verdict.figure.bands == {"mean": (ROUNDS, LOWER, UPPER)}
    assert "bands" not in json.dumps(verdict.as_json())  # figure only: not in the verdict


BANDED_CLAIMS = ("sagda.p5", "sagda.p6a", "sagda.p6b", "sagda.p10", "fednorm.p10a",
                 "fednorm.p10b", "fednorm.p11", "proxskip.p3", "proxskip.p18")


@pytest.mark.slow
@pytest.mark.parametrize("cid", BANDED_CLAIMS)
def test_monte_carlo_claims_band_their_means(cid: str) -> None:
    """Each replica-mean series of these claims gets its per-point interval as a band: same
    x, the mean inside its band at every point."""
    from fedbounds.verify import catalog

    figure = catalog.claims()[cid].run("quick", 0).figure
    assert figure is not None and figure.bands, cid
    for label, (xs, lower, upper) in figure.bands.items():
        series_xs, means = figure.series[label]
        assert list(xs) == list(series_xs), label
        assert all(lo <= mean <= hi for lo, mean, hi in zip(lower, means, upper, strict=True))
        assert any(hi > lo for lo, hi in zip(lower, upper, strict=True))  # an interval, not a line
