"""The report's figure style, in one place: one SVG per claim from its :class:`Figure` data.

* colours: the Okabe–Ito palette (safe for the common colour-vision deficiencies); past its
  eight colours a series also changes line style (scatter: marker), so no two series look alike;
* reference values (``hlines``: the prediction, a bound, a limit) are dashed grey-to-black lines
  named in the legend, never text on the plot, so their labels cannot overlap; a figure's
  ``bands`` (label → (x, lower, upper), where the data has replica intervals) are shaded, a
  band named like a series in that series' colour under one legend entry for all such bands
  (:data:`BAND_LEGEND`), any other band in its own colour under its own name;
* the legend sits outside the axes on the right; axis labels and legend entries with sub- or
  superscripts (``η_{x,l}``, ``T^{1/4}``) are set as matplotlib mathtext;
* a linear axis whose values are a few integers (categories such as algorithm options) gets
  integer ticks only; log axes as the claim's figure spec asks (slopes);
* speed: fixed margins (no ``tight_layout``), a fixed title position, plain tick formatters
  (no mathtext ticks), no minor ticks on log axes of many decades, text as SVG text;
* byte-stable SVG for equal data: no date in the metadata and a fixed ``svg.hashsalt``.
"""

from __future__ import annotations

import io
import math
import re
from functools import cache
from pathlib import Path
from typing import BinaryIO

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
             "#000000")
LINE_STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
REFERENCE_COLOURS = ("#000000", "#555555", "#888888")
REFERENCE_STYLES = ((0, (5, 3)), (0, (1, 2)), (0, (6, 2, 1, 2)), (0, (3, 1)))
FIGURE_SIZE = (7.2, 3.9)  # inches; the axes keep fixed margins (below) instead of tight_layout
AXES_BOX = (0.10, 0.14, 0.60, 0.76)  # left, bottom, width, height (figure fraction)
AXES_BOX_NO_LEGEND = (0.10, 0.14, 0.86, 0.76)
BAND_ALPHA = 0.18
BAND_LEGEND = "shaded: confidence interval"
MINOR_DECADES = 3  # log axes spanning more decades than this have no minor ticks

_PIECE = r"(?:[^\s,;:()|=·{}]|\{[^{}]*\})"
_MATHY = re.compile(f"{_PIECE}*[_^]{_PIECE}*")
# words mathtext always accepts once braced (letters, digits, scripts in balanced one-level
# braces, a few operators): no trial parse for these (a parse costs tens of milliseconds)
_PLAIN_MATH = re.compile(r"(?:[^\W_]|[_^](?:[^\W_]|\{[\w,.+\-−′'*·/ ]*\})|[.+\-−′'*·/])+")


def series_style(index: int) -> dict:
    """Colour and line style of the ``index``-th series (style changes every 8 series)."""
    return {"color": OKABE_ITO[index % len(OKABE_ITO)],
            "linestyle": LINE_STYLES[(index // len(OKABE_ITO)) % len(LINE_STYLES)]}


def mathtext(label: str) -> str:
    """A label with its sub-/superscripted words (``η_{x,l}``, ``T^{1/4}``, ``x_k^t``) as
    mathtext; ``$`` elsewhere escaped. Text without ``_`` or ``^`` is returned unchanged."""
    out, last = [], 0
    for m in _MATHY.finditer(label):
        word = m.group(0)
        if not re.search(r"\w[_^][^_^]", word) or not (
                _PLAIN_MATH.fullmatch(word) or _parses("$" + _braced(word) + "$")):
            continue
        out.append(label[last:m.start()].replace("$", r"\$"))
        out.append("$" + _braced(word) + "$")
        last = m.end()
    out.append(label[last:].replace("$", r"\$"))
    return "".join(out)


@cache
def _parses(text: str) -> bool:
    """Whether matplotlib's mathtext accepts ``text`` (else the label stays plain text)."""
    from matplotlib.mathtext import MathTextParser

    try:
        MathTextParser("path").parse(text)
    except ValueError:
        return False
    return True


def _braced(word: str) -> str:
    """``η_lη_gK`` → ``η_{l}η_{g}K``: an unbraced script takes one character, as in TeX; a
    ``*`` or ``·`` in math is a product dot."""
    word = re.sub(r"([_^])([^{])", r"\1{\2}", word)
    return word.replace("·", r"\cdot ").replace("*", r"\ast ").replace("%", r"\%")


def svg_bytes(fig) -> bytes:
    """``fig`` drawn as SVG (:func:`render_svg`), as bytes: what a worker sends back."""
    buffer = io.BytesIO()
    render_svg(fig, buffer)
    return buffer.getvalue()


def render_svg(fig, path: Path | BinaryIO) -> None:
    """Draw ``fig`` (a :class:`~fedbounds.verify.claim.Figure`) into the SVG file ``path`` (or
    a binary file object)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter, NullLocator

    with plt.rc_context({"svg.hashsalt": "fedbounds", "font.size": 9,
                         "axes.spines.top": False, "axes.spines.right": False,
                         "axes.grid": True, "grid.color": "#e6e6e6", "grid.linewidth": 0.6,
                         "mathtext.fontset": "dejavusans", "svg.fonttype": "none"}):
        figure = plt.figure(figsize=FIGURE_SIZE)
        bands = getattr(fig, "bands", None) or {}
        handles = len(fig.series) + len(fig.hlines) + len(bands)
        ax = figure.add_axes(AXES_BOX if handles else AXES_BOX_NO_LEGEND)
        xs_all: list[float] = []
        colours: dict[str, str] = {}
        for i, (label, (xs, ys)) in enumerate(fig.series.items()):
            style = series_style(i)
            colours[label] = style["color"]
            xs_all += list(xs)
            if fig.kind == "scatter":
                ax.scatter(xs, ys, label=mathtext(label), s=22, color=style["color"],
                           marker=MARKERS[(i // len(OKABE_ITO) + i) % len(MARKERS)], zorder=3)
            else:
                ax.plot(xs, ys, label=mathtext(label), lw=1.5, **style)
        _draw_bands(ax, bands, colours)
        for i, (label, y) in enumerate(fig.hlines.items()):
            ax.axhline(y, lw=1.2, color=REFERENCE_COLOURS[i % len(REFERENCE_COLOURS)],
                       linestyle=REFERENCE_STYLES[i % len(REFERENCE_STYLES)],
                       label=mathtext(str(label)), zorder=2)
        _scales(ax, fig, xs_all)
        plain = FuncFormatter(lambda value, _pos: _tick(value))
        for axis, log in ((ax.xaxis, ax.get_xscale() == "log"),
                          (ax.yaxis, ax.get_yscale() == "log")):
            axis.set_major_formatter(plain)
            # a log axis spanning less than a decade has at most one major label: label the
            # minor ticks too (plainly); one spanning more than MINOR_DECADES decades has no
            # minor ticks (each is a costly artist, and that many add nothing to read)
            low, high = sorted(axis.get_view_interval())
            decades = (math.log10(high) - math.log10(low)
                       if log and 0 < low and math.isfinite(high) else math.inf)
            axis.set_minor_formatter(plain if decades < 1 else NullFormatter())
            if log and decades > MINOR_DECADES:
                axis.set_minor_locator(NullLocator())
        if not fig.logx and _few_integers(xs_all):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(mathtext(fig.xlabel))
        ax.set_ylabel(mathtext(fig.ylabel))
        ax.set_title(mathtext(fig.title), fontsize=9.5, loc="left", y=1.0)
        if handles:
            ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=7.5,
                      frameon=False, borderaxespad=0.0, handlelength=2.6)
        figure.savefig(path, format="svg", metadata={"Date": None})
        plt.close(figure)


def _draw_bands(ax, bands: dict, colours: dict[str, str]) -> None:
    """Shade each band (x, lower, upper): in its series' colour when it is named like one
    (one legend entry, :data:`BAND_LEGEND`, for all of those), else in the next palette
    colour under its own name."""
    import numpy as np

    own = len(colours)
    matched = False
    for label, (xs, lower, upper) in bands.items():
        if label in colours:
            colour, name, matched = colours[label], "_band", True
        else:
            colour, name = series_style(own)["color"], mathtext(label)
            own += 1
        # a missing end (null in stored JSON: an infinite interval) leaves a gap, not an error;
        # x in increasing order, so that the region does not fold over itself
        ends = np.array([[math.nan if v is None else v for v in values]
                         for values in (xs, lower, upper)], dtype=float)
        ends = ends[:, np.argsort(ends[0], kind="stable")]
        ax.fill_between(*ends, color=colour, alpha=BAND_ALPHA, lw=0, label=name, zorder=1)
    if matched:
        ax.fill_between([], [], [], color="#777777", alpha=BAND_ALPHA * 2, lw=0,
                        label=BAND_LEGEND)


def _scales(ax, fig, xs_all: list[float]) -> None:
    """Log axes as the spec asks, linear where the data has no positive values to show."""
    if fig.logx and any(x > 0 for x in xs_all):
        ax.set_xscale("log")
    if fig.logy:
        ys = [y for _, ys in fig.series.values() for y in ys] + list(fig.hlines.values())
        if any(isinstance(y, (int, float)) and y > 0 for y in ys):
            ax.set_yscale("log")


def _few_integers(xs: list[float]) -> bool:
    values = {x for x in xs if isinstance(x, (int, float)) and math.isfinite(x)}
    return 0 < len(values) <= 12 and all(float(x).is_integer() for x in values)


def _tick(value: float) -> str:
    """A plain tick label: ``0.001``, ``20``, ``1e-08`` (no mathtext)."""
    if value == 0:
        return "0"
    return f"{value:.3g}".replace("e-0", "e-").replace("e+0", "e").replace("e+", "e")
