"""The verification report: theory pages (statements, errata, complexity) and verification pages
(a verdict per claim with statistic, prediction, tolerance and one SVG figure per claim).

Written to ``reports/``: ``index.html``, ``<paper>.md`` and ``<paper>.html`` per paper and
``figures/<claim>.svg``. Everything is rendered into a temporary folder first and moved into
place at the end, so a failed run never leaves a half-written report.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import sympy as sp
from jinja2 import Environment, PackageLoader, select_autoescape

from fedbounds import registry
from fedbounds.complexity import derive
from fedbounds.findings import findings
from fedbounds.pretty import fmt_order
from fedbounds.verify import catalog
from fedbounds.verify.claim import RunConfig

VERDICT_COLOURS = {"confirmed": "#1a7f37", "refuted": "#cf222e", "inconclusive": "#9a6700",
                   "diverged": "#8250df"}


def _env() -> Environment:
    env = Environment(loader=PackageLoader("fedbounds.app", "templates"),
                      autoescape=select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = _num
    env.filters["colour"] = lambda v: VERDICT_COLOURS.get(v, "#57606a")
    return env


def _num(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, (int, float)):
        if isinstance(x, float) and not math.isfinite(x):
            return str(x)
        return f"{x:.4g}"
    return str(x)


def theory(paper: str) -> dict:
    """Statements, errata (with the claims that check them) and complexity rows of a paper."""
    meta = registry.papers()[paper]
    thms = meta["theorems"]
    errata: dict[str, dict] = {}
    for t in thms:
        for e in t.errata:
            row = errata.setdefault(e.id, {"e": dataclasses.asdict(e), "theorems": [],
                                           "claims": []})
            row["theorems"].append(t.id)
    complexity_rows = []
    for t in thms:
        if not (t.claimed or t.specializations):
            continue
        rep = derive(t)
        for reg in rep.regimes:
            for row in reg.rows:
                complexity_rows.append({
                    "theorem": t.id, "regime": reg.name, "cost": row.cost,
                    "derived": fmt_order(row.derived_order), "claimed": fmt_order(row.claimed),
                    "verdict": row.verdict, "note": reg.note if row.verdict != "agree" else "",
                    "detail": row.detail if row.verdict == "disagree" else ""})
        for s in rep.schedule:
            if s.verdict != "always":
                complexity_rows.append({
                    "theorem": t.id, "regime": "schedule vs conditions", "cost": s.condition,
                    "derived": s.verdict, "claimed": "holds", "verdict": s.verdict,
                    "note": s.source, "detail": s.detail})
    statements = [{"id": t.id, "title": t.title, "source": t.source, "statement": t.statement,
                   "conditions": [(c.name, sp.sstr(c.rel), c.source) for c in t.conditions],
                   "bound": [(b.name, sp.sstr(b.expr), b.source) for b in t.bound],
                   "lhs": t.bound_lhs, "sense": "≥" if t.bound_sense == ">=" else "≤",
                   "findings": [f.text for f in findings(t)]}
                  for t in thms]
    meta = {k: v for k, v in meta.items() if k != "theorems"}  # plain data: picklable
    return {"meta": meta, "statements": statements, "errata": errata,
            "complexity": complexity_rows}


def _figure_svg(fig, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "fedbounds"  # identical SVGs for identical data
    f, ax = plt.subplots(figsize=(6.4, 4.0))
    for label, (xs, ys) in fig.series.items():
        if fig.kind == "scatter":
            ax.scatter(xs, ys, label=label, s=14)
        else:
            ax.plot(xs, ys, label=label, lw=1.4)
    for label, y in fig.hlines.items():
        ax.axhline(y, ls="--", lw=1, color="0.3")
        ax.annotate(label, (0.01, y), xycoords=("axes fraction", "data"), fontsize=8,
                    va="bottom", color="0.3")
    if fig.logx:
        ax.set_xscale("log")
    if fig.logy:
        ax.set_yscale("log")
    ax.set_xlabel(fig.xlabel)
    ax.set_ylabel(fig.ylabel)
    ax.set_title(fig.title, fontsize=10)
    if fig.series:
        ax.legend(fontsize=8)
    f.tight_layout()
    f.savefig(path, format="svg", metadata={"Date": None})
    plt.close(f)


def write_report(out: Path, profile: str = "quick", backend: str = "serial", seed: int = 0,
                 papers: list[str] | None = None,
                 progress: Callable[[str], None] | None = None) -> dict:
    """Run every claim, render the report into ``out`` (atomically); return a summary."""

    from .runner import run_claims

    out = Path(out)
    keys = papers or list(registry.papers())
    all_claims = catalog.claims()
    ids = [c.id for c in all_claims.values() if c.paper in keys]
    # theory pages (symbolic complexity derivations) in worker processes while claims run here
    with ProcessPoolExecutor(max_workers=2) as pool:
        pending = {key: pool.submit(theory, key) for key in keys}
        verdicts = {v.id: v for v in run_claims(ids, profile, seed, backend, progress)}
        theories = {key: f.result() for key, f in pending.items()}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".report-", dir=out.parent))
    try:
        (tmp / "figures").mkdir()
        env = _env()
        pages = []
        for key in keys:
            th = theories[key]
            claims = sorted((c for c in all_claims.values() if c.paper == key),
                            key=lambda c: _natural(c.id))
            rows = []
            for c in claims:
                v = verdicts[c.id]
                fig_name = None
                if v.figure is not None:
                    fig_name = f"figures/{c.id}.svg"
                    _figure_svg(v.figure, tmp / fig_name)
                for eid in c.errata:
                    if eid in th["errata"]:
                        th["errata"][eid]["claims"].append(c.id)
                rows.append({"claim": c, "v": v, "figure": fig_name,
                             "evidence": json.dumps(v.as_json()["evidence"], indent=1)[:4000],
                             "rerun": _rerun(v)})
            counts = {k: sum(r["v"].verdict == k for r in rows) for k in VERDICT_COLOURS}
            page = {"key": key, "theory": th, "rows": rows, "counts": counts,
                    "profile": profile, "seed": seed}
            for ext in ("md", "html"):
                (tmp / f"{key}.{ext}").write_text(env.get_template(f"paper.{ext}.j2").render(**page))
            pages.append(page)
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        (tmp / "index.html").write_text(env.get_template("index.html.j2").render(
            pages=pages, profile=profile, seed=seed, stamp=stamp, backend=backend))
        summary = {"claims": [verdicts[i].as_json() for i in ids]}
        (tmp / "verdicts.json").write_text(json.dumps(summary, indent=1, allow_nan=False) + "\n")
        _move_into(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary


def _natural(claim_id: str) -> tuple:
    """p2 < p5 < p10 < p10a: numbers compared as numbers."""
    return tuple(int(part) if part.isdigit() else part
                 for part in re.split(r"(\d+)", claim_id))


def _rerun(v) -> str | None:
    """The `fedbounds run` command of a verdict's run config (a :class:`RunConfig`)."""
    if not v.config:
        return None
    return RunConfig(**v.config).command()


def _move_into(tmp: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    old_figs = out / "figures"
    if old_figs.exists():
        shutil.rmtree(old_figs)
    for item in tmp.iterdir():
        os.replace(item, out / item.name)
