"""The result store's rows: verdicts as rows (JSON columns, the figure's data) and what a row
read back must be before it is used. The store is data someone else may have written (a
colleague's results, a shared filesystem, an archive), never code.

Every row carries a **digest**, a SHA-256 of its other columns written with it
(:func:`digest`): a row whose columns were edited, corrupted or written by another program does
not match it. The digest is a checksum, not a signature: whoever can write the file can forge a
row with a matching digest, so every row is also checked for shape (types, ranges, known keys;
:func:`result_problem`, :func:`svg_problem`), and nothing read from a row is ever evaluated: the
report's stored expressions are JSON trees rebuilt by :mod:`fedbounds.exprtree`, figures are SVG
checked against what matplotlib writes. A row that fails is ignored (with a warning naming the
store, :func:`warn_ignored`) and recomputed; a forged but well-formed row can only misstate a
number, which ``--fresh`` recomputes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import re
import sqlite3
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from fedbounds.verify.claim import PROVENANCES, Figure, Verdict
from fedbounds.verify.conditions import STATUSES

LOG = logging.getLogger("fedbounds.store")

VERDICT_KINDS = frozenset({"confirmed", "refuted", "inconclusive", "diverged"})
BACKENDS = frozenset({"serial", "process", "dask"})
_HEX64 = re.compile(r"[0-9a-f]{64}")
_CLAIM_ID = re.compile(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+")
_WORD = re.compile(r"[A-Za-z0-9_.+-]{1,64}")
# a verdict's fields kept in ``extra`` (the others have columns of their own)
EXTRA_KEYS = frozenset({"provenance", "conditions"})
FIGURE_KEYS = frozenset({"title", "xlabel", "ylabel", "series", "logx", "logy", "hlines",
                         "kind", "bands"})


def digest(table: str, row: Mapping[str, Any]) -> str:
    """SHA-256 of a row's columns (all but ``digest``), bytes as hex, in column-name order."""
    plain = {k: (bytes(v).hex() if isinstance(v, bytes | memoryview) else v)
             for k, v in sorted(row.items()) if k != "digest"}
    text = json.dumps([table, plain], sort_keys=True, allow_nan=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def digest_problem(table: str, row: Mapping[str, Any]) -> str | None:
    """Why a row's digest does not vouch for it (None when it does)."""
    stored = row.get("digest")
    if not isinstance(stored, str) or not _HEX64.fullmatch(stored):
        return "no digest (written by another program or an older fedbounds)"
    if stored != digest(table, row):
        return "its columns do not match its digest (edited or corrupted)"
    return None


def warn_ignored(path: Path | str, table: str, key: object, reason: str) -> None:
    """Say on stderr that a stored row is ignored (and will be recomputed)."""
    LOG.warning("fedbounds: result store %s: ignoring %s row %s: %s; it is recomputed",
                path, table, str(key)[:16], reason)


def _json_column(row: Mapping[str, Any], column: str, kinds: tuple[type, ...],
             nullable: bool = False) -> Any:
    text = row.get(column)
    if text is None and nullable:
        return None
    if not isinstance(text, str):
        raise ValueError(f"{column} is not JSON text")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise ValueError(f"{column} is not JSON") from None
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        raise ValueError(f"{column} is {type(value).__name__}, not "
                         + " or ".join(k.__name__ for k in kinds))
    return value


def _number(value: Any, column: str, nullable: bool = True) -> None:
    if value is None and nullable:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{column} is not a number")


def _time(value: Any, column: str, nullable: bool) -> None:
    if value is None and nullable:
        return
    try:
        datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise ValueError(f"{column} is not an ISO 8601 time") from None


def cached_problem(table: str, row: Mapping[str, Any]) -> str | None:
    """Why a ``derivations`` or ``figures`` row cannot be used, before its value is looked at
    (None when it can): its digest, its time and seconds."""
    found = digest_problem(table, row)
    if found:
        return found
    try:
        _time(row.get("computed_at"), "computed_at", nullable=False)
        if "seconds" in row:
            _number(row.get("seconds"), "seconds")
    except ValueError as e:
        return str(e)
    return None


def result_problem(row: Mapping[str, Any]) -> str | None:
    """Why a ``results`` row cannot be used (None when it can): its digest, then the type and
    range of every column and the keys of its JSON columns."""
    found = digest_problem("results", row)
    if found:
        return found
    try:
        if not isinstance(row.get("key"), str):
            raise ValueError("key is not text")
        claim = row.get("claim")
        if not isinstance(claim, str) or not _CLAIM_ID.fullmatch(claim) or len(claim) > 100:
            raise ValueError("claim is not a claim id")
        if row.get("paper") != claim.split(".", 1)[0]:
            raise ValueError("paper is not the claim's")
        for column in ("profile", "version"):
            if not isinstance(row.get(column), str) or not _WORD.fullmatch(row[column]):
                raise ValueError(f"{column} is not a short word")
        if not isinstance(row.get("source_hash"), str) or not _HEX64.fullmatch(
                row["source_hash"]):
            raise ValueError("source_hash is not a SHA-256")
        for column in ("seed", "instance_seed"):
            if isinstance(row.get(column), bool) or not isinstance(row.get(column), int) \
                    or row[column] < 0:
                raise ValueError(f"{column} is not a non-negative integer")
        if row.get("verdict") not in VERDICT_KINDS:
            raise ValueError("verdict is not one of " + ", ".join(sorted(VERDICT_KINDS)))
        _number(row.get("statistic"), "statistic")
        _number(row.get("seconds"), "seconds")
        if row.get("seconds") is not None and row["seconds"] < 0:
            raise ValueError("seconds is negative")
        for column in ("predicted", "tolerance"):
            _json_column(row, column, (int, float, str, type(None)), nullable=True)
        if row.get("rule") is not None and not isinstance(row["rule"], str):
            raise ValueError("rule is not text")
        _json_column(row, "overrides", (dict,))
        _json_column(row, "evidence", (dict,))
        _json_column(row, "config", (dict,))
        extra = _json_column(row, "extra", (dict,))
        if set(extra) - EXTRA_KEYS:
            raise ValueError(f"extra has unknown keys {sorted(set(extra) - EXTRA_KEYS)}")
        if extra.get("provenance") not in (None, *PROVENANCES):
            raise ValueError("extra's provenance is not one of " + ", ".join(PROVENANCES))
        _conditions_problem(extra.get("conditions", {"status": "not checked"}))
        figure = _json_column(row, "figure", (dict,), nullable=True)
        if figure is not None:
            _figure(figure)
        _time(row.get("started_at"), "started_at", nullable=True)
        _time(row.get("computed_at"), "computed_at", nullable=False)
        if row.get("backend") not in (None, *BACKENDS):
            raise ValueError("backend is not one of " + ", ".join(sorted(BACKENDS)))
    except ValueError as e:
        return str(e)
    return None


def _figure(doc: dict) -> None:
    if set(doc) - FIGURE_KEYS or not {"title", "xlabel", "ylabel", "series"} <= set(doc):
        raise ValueError("figure does not have a figure's keys")
    for column in ("title", "xlabel", "ylabel", "kind"):
        if not isinstance(doc.get(column), str | None):
            raise ValueError(f"figure's {column} is not text")
    for name, arrays in (*doc["series"].items(), *doc.get("bands", {}).items()):
        if not isinstance(arrays, list) or len(arrays) not in (2, 3) or not all(
                isinstance(a, list) and all(_plain_number(x) for x in a) for a in arrays):
            raise ValueError(f"figure's series {name!r} is not lists of numbers")
    if not isinstance(doc.get("hlines"), dict) or not all(
            _plain_number(v) for v in doc["hlines"].values()):
        raise ValueError("figure's hlines are not numbers")


def _plain_number(x: Any) -> bool:
    return x is None or isinstance(x, int | float) and not isinstance(x, bool)


# ---- verdicts as rows (written by the store, read back by it) --------------------------------------------------------------------------


def json_text(value: Any) -> str:
    """JSON text; non-finite floats are kept (as NaN/Infinity) so figures round-trip."""
    return json.dumps(value, sort_keys=False, allow_nan=True, default=_plain)


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON data")


def figure_json(figure: Figure | None) -> str | None:
    """A figure's data as JSON text (series as [xs, ys] lists, bands as [xs, lower, upper];
    no ``bands`` key for a figure without bands, so that its JSON and key stay as before)."""
    if figure is None:
        return None
    series = {name: [_json_list(xs), _json_list(ys)] for name, (xs, ys) in figure.series.items()}
    doc = {"title": figure.title, "xlabel": figure.xlabel, "ylabel": figure.ylabel,
           "series": series, "logx": figure.logx, "logy": figure.logy,
           "hlines": figure.hlines, "kind": figure.kind}
    bands = getattr(figure, "bands", None) or {}
    if bands:
        doc["bands"] = {name: [_json_list(xs), _json_list(lo), _json_list(hi)]
                        for name, (xs, lo, hi) in bands.items()}
    return json_text(doc)


def _json_list(values: Any) -> list:
    return json.loads(json_text(values.tolist() if hasattr(values, "tolist") else list(values)))


def figure_from_json(text: str | None) -> Figure | None:
    """The inverse of :func:`figure_json` (a figure stored before bands existed has none)."""
    if text is None:
        return None
    doc = json.loads(text)
    series = {name: (xs, ys) for name, (xs, ys) in doc["series"].items()}
    bands = {name: (xs, lo, hi) for name, (xs, lo, hi) in doc.get("bands", {}).items()}
    return Figure(doc["title"], doc["xlabel"], doc["ylabel"], series, doc["logx"], doc["logy"],
                  doc["hlines"], doc["kind"], bands)


def _verdict_from(doc: Mapping[str, Any], figure: Figure | None) -> Verdict:
    """A :class:`Verdict` from its JSON (``as_json``) and its figure."""
    names = {f.name for f in dataclasses.fields(Verdict)} - {"figure"}
    return Verdict(**{k: v for k, v in doc.items() if k in names}, figure=figure)


def normalized(verdict: Verdict) -> Verdict:
    """The verdict as the store gives it back (JSON data throughout), so that a fresh verdict
    and a stored one render to the same bytes."""
    return _verdict_from(json.loads(json_text(verdict.as_json())),
                         figure_from_json(figure_json(verdict.figure)))


def _conditions_problem(conditions: Any) -> None:
    """A verdict's conditions record (:mod:`fedbounds.verify.conditions`): its shape, checked
    key by key (``ValueError`` naming what is wrong)."""
    if not isinstance(conditions, dict) or conditions.get("status") not in STATUSES:
        raise ValueError("extra's conditions is not a conditions record")
    if set(conditions) - {"status", "runs", "why"}:
        raise ValueError("extra's conditions has unknown keys")
    if not isinstance(conditions.get("why", ""), str):
        raise ValueError("extra's conditions' why is not text")
    for run in conditions.get("runs", []):
        if not (isinstance(run, dict) and set(run) == {"theorem", "where", "holds", "failing"}
                and isinstance(run["theorem"], str) and isinstance(run["where"], str)
                and isinstance(run["holds"], bool) and isinstance(run["failing"], list)):
            raise ValueError("extra's conditions has a malformed run")
        for c in run["failing"]:
            if not (isinstance(c, dict) and set(c) == {"name", "margin", "source"}
                    and isinstance(c["name"], str) and isinstance(c["source"], str)
                    and (c["margin"] is None or isinstance(c["margin"], int | float))):
                raise ValueError("extra's conditions has a malformed failing condition")


def storable(verdict: Verdict) -> bool:
    """Whether a verdict is a result (not a claim that raised: those are retried next time)."""
    return "error" not in verdict.evidence


def verdict_of_row(row: sqlite3.Row) -> Verdict:
    doc = {"id": row["claim"], "verdict": row["verdict"], "statistic": row["statistic"],
           "predicted": json.loads(row["predicted"]), "tolerance": json.loads(row["tolerance"]),
           "rule": row["rule"] or "", "evidence": json.loads(row["evidence"]),
           "config": json.loads(row["config"]), "seconds": row["seconds"], "seed": row["seed"],
           "instance_seed": row["instance_seed"], **json.loads(row["extra"])}
    return _verdict_from(doc, figure_from_json(row["figure"]))


def sql_value(value: Any) -> Any:
    """A value as SQLite gives it back (numpy scalars as Python numbers), so that a row's
    digest is computed on what is read."""
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        return value.item()
    return value

def decoded(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row with its JSON columns parsed (for JSON output)."""
    out = dict(row)
    for column in ("overrides", "predicted", "tolerance", "evidence", "config", "figure",
                   "extra"):
        if out.get(column) is not None:
            out[column] = json.loads(out[column])
    return out


# ---- figures -----------------------------------------------------------------------------------

_SVG = "{http://www.w3.org/2000/svg}"
# the elements matplotlib's SVG backend writes (and the metadata namespaces it uses)
SVG_ELEMENTS = frozenset({
    "svg", "g", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text",
    "tspan", "use", "defs", "clipPath", "mask", "pattern", "linearGradient", "radialGradient",
    "stop", "image", "style", "title", "desc", "metadata", "symbol"})
_METADATA = ("{http://www.w3.org/1999/02/22-rdf-syntax-ns#}", "{http://creativecommons.org/ns#}",
             "{http://purl.org/dc/elements/1.1/}")
_HREF_OK = re.compile(r"#[\w.:-]+|data:image/png;base64,[A-Za-z0-9+/=\s]*")
_CSS_BAD = re.compile(r"@import|javascript:|expression\s*\(|url\(\s*(?!#)", re.IGNORECASE)


def svg_problem(svg: bytes) -> str | None:
    """Why stored SVG bytes are not a figure fedbounds drew (None when they are): XML with an
    ``svg`` root, no entity declarations, only the elements matplotlib writes, no event
    attributes, links only inside the document (or embedded PNG), no CSS that loads or runs
    anything."""
    if not isinstance(svg, bytes) or b"<!ENTITY" in svg or b"<!entity" in svg:
        return "not SVG bytes without entity declarations"
    try:
        root = ElementTree.fromstring(svg)
    except (ElementTree.ParseError, ValueError, RecursionError):
        return "not well-formed XML"
    if root.tag != f"{_SVG}svg":
        return "its root is not an svg element"
    for element in root.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag.startswith(_METADATA):
            pass
        elif not tag.startswith(_SVG) or tag[len(_SVG):] not in SVG_ELEMENTS:
            return f"element {tag[:60]!r} is not one matplotlib writes"
        for name, value in element.attrib.items():
            local = name.rsplit("}", 1)[-1]
            if local.lower().startswith("on"):
                return f"event attribute {local!r}"
            if local == "href" and not _HREF_OK.fullmatch(value):
                return "a link out of the document"
            if local == "style" and _CSS_BAD.search(value):
                return "style that loads or runs something"
        if tag == f"{_SVG}style" and _CSS_BAD.search(element.text or ""):
            return "style that loads or runs something"
    return None
