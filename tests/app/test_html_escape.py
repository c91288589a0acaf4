"""Report pages show data as text: every theorem's statement, condition relations and bound
terms appear whole in the paper's pages, printed in the paper's notation (the HTML page as
MathML, the Markdown page as ``$…$`` LaTeX; statements as prose with their symbols set as
math), and no tag but the templates' own and MathML's is ever opened. Every ``<math>``
element is well-formed XML (a relation's ``<`` is ``&lt;``, never a raw character). The Markdown
page, rendered by a CommonMark + tables renderer with raw HTML allowed, shows hostile texts
verbatim (nothing HTML-escaped in it, no table broken by a ``|``), and a statement can never
become a tag there either.

The default test replaces the symbolic complexity derivation (minutes for all papers) and the
findings by hostile text; the slow one renders the real report of every paper.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

from fedbounds import registry
from fedbounds.app import complexity_rows, mathtext, report
from fedbounds.verify import catalog
from fedbounds.verify.claim import FigureSpec, Interval, Measurement, claim

LAYOUT_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "a",
               "code", "table", "tr", "th", "td", "small", "br", "em", "span", "img",
               "details", "summary", "pre", "ul", "li", "section", "dl", "dt", "dd", "div",
               "footer", "i", "b"}
MATHML_TAGS = {"math", "mrow", "mi", "mn", "mo", "msub", "msup", "msubsup", "mfrac", "msqrt",
               "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd", "mtext",
               "mfenced", "mspace", "mstyle"}
TEMPLATE_TAGS = LAYOUT_TAGS | MATHML_TAGS
MARKDOWN_TAGS = {"h1", "h2", "h3", "p", "a", "code", "table", "thead", "tbody", "tr", "th", "td",
                 "em", "strong", "img", "details", "summary", "pre", "ul", "li", "hr"}
SYMPY_SYNTAX = ("**", "Max(", "Min(", "Piecewise(", "sqrt(")
RELATION_SIGNS = {sp.StrictLessThan: "&lt;", sp.StrictGreaterThan: "&gt;", sp.LessThan: "≤",
                  sp.GreaterThan: "≥"}
HOSTILE = ["x<T and y>z", "<script>alert(1)</script>", "Σ_{t<T} a*b* & c | d", "<b>bold</b>",
           "γ^{<img src=x>}_x"]
# the HTML pages set the typed LaTeX-style fragments of HOSTILE[2] and HOSTILE[4] as MathML:
# each character of them a text node (written out here as MathML Core presents it)
HOSTILE_MATHML = {
    HOSTILE[2]: ("<msub><mi>Σ</mi><mrow><mi>t</mi><mo>&lt;</mo><mi>T</mi></mrow></msub>",
                 " a*b* & c | d"),
    HOSTILE[4]: ("<msubsup><mi>γ</mi><mi>x</mi><mrow><mo>&lt;</mo><mi>i</mi><mi>m</mi>"
                 "<mi>g</mi><mi>s</mi><mi>r</mi><mi>c</mi><mo>=</mo><mi>x</mi><mo>&gt;</mo>"
                 "</mrow></msubsup>", ""),
}


class Page(HTMLParser):
    """Start tags and text chunks (the text between two tags, character references decoded;
    whitespace alone is no chunk)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.chunks: list[str] = []
        self.pending = ""
        self.feed(text)
        self.close()
        self.flush()

    def flush(self) -> None:
        if self.pending.strip():
            self.chunks.append(self.pending)
        self.pending = ""

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.flush()
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        self.flush()

    def handle_data(self, data: str) -> None:
        self.pending += data


def hostile_claim():
    @claim("proxskip.p990", title=HOSTILE[0], prediction=f"{HOSTILE[1]} {HOSTILE[4]}",
           source=HOSTILE[2],
           provenance="conjecture", rule=Interval(0.5, 0.5),
           figure=FigureSpec(HOSTILE[3], "i", "x"))
    def measure(params, seed):
        x = np.random.default_rng(seed).random(4)  # no series: no figure to draw
        return Measurement(float(x.mean()), evidence={"note": HOSTILE[0]})

    return measure


def hostile_derivation(theorem) -> SimpleNamespace:
    row = SimpleNamespace(cost=HOSTILE[0], derived_order=None, claimed=None,
                          verdict="disagree", detail=HOSTILE[1])
    return SimpleNamespace(regimes=[SimpleNamespace(name=HOSTILE[2], note=HOSTILE[3],
                                                    rows=[row])], schedule=[])


def markdown_page(text: str) -> Page:
    markdown_it = pytest.importorskip("markdown_it")
    renderer = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table")
    return Page(renderer.render(text))


def check_pages(out: Path) -> None:
    """Every theorem's texts in its paper's pages, in the notation; only the templates' tags
    and MathML; every formula well-formed; no sympy syntax in the text a reader sees."""
    for paper in registry.papers():
        html_source = (out / f"{paper}.html").read_text(encoding="utf-8")
        html = Page(html_source)
        md_source = (out / f"{paper}.md").read_text(encoding="utf-8")
        md = markdown_page(md_source)
        assert set(html.tags) <= TEMPLATE_TAGS, set(html.tags) - TEMPLATE_TAGS
        assert set(md.tags) <= MARKDOWN_TAGS, set(md.tags) - MARKDOWN_TAGS
        assert "&lt;" not in md_source and "&amp;" not in md_source
        assert "<math" not in md_source  # the Markdown page has LaTeX, not MathML
        for formula in re.findall(r"<math\b.*?</math>", html_source, re.S):
            ElementTree.fromstring(formula)  # well-formed: no text became markup
        for token in SYMPY_SYNTAX:
            assert not any(token in chunk for chunk in html.chunks), (paper, token)
        theorems = [t for t in registry.theorems().values() if t.paper == paper]
        assert theorems
        for theorem in theorems:
            check_theorem(theorem, html_source, md_source)
    index = Page((out / "index.html").read_text(encoding="utf-8"))
    assert set(index.tags) <= TEMPLATE_TAGS


def check_theorem(theorem, html_source: str, md_source: str) -> None:
    """The statement (prose with symbols as math), each condition and each bound term
    (MathML in the HTML page, ``$…$`` in the Markdown page) present whole."""
    names = mathtext.symbol_names(theorem.notation)
    statement = report._prose(theorem.statement, names)
    assert str(report.html_math(statement)) in html_source, theorem.id
    assert report.md_math(statement, inline=False) in md_source, theorem.id
    for condition in theorem.conditions:
        formula = report._math(condition.rel, names)
        assert formula.html.startswith("<math") and formula.md.startswith("$")
        sign = RELATION_SIGNS.get(type(condition.rel))
        assert sign is None or f"<mo>{sign}</mo>" in formula.html, (theorem.id, formula.html)
        assert formula.html in html_source, (theorem.id, condition.name)
        assert report.md_math(formula, cell=True) in md_source, (theorem.id, condition.name)
    for term in theorem.bound:
        formula = report._math(term.expr, names)
        assert formula.html in html_source, (theorem.id, term.name)
        assert formula.md in md_source, (theorem.id, term.name)


def test_pages_show_data_as_text(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(complexity_rows, "derive", hostile_derivation)
    monkeypatch.setattr(report, "findings", lambda theorem: [SimpleNamespace(text=HOSTILE[3])])
    spec = hostile_claim()
    monkeypatch.setattr(catalog, "claims", lambda: {spec.id: spec})
    report.write_report(tmp_path / "r")
    check_pages(tmp_path / "r")
    html_source = (tmp_path / "r" / "proxskip.html").read_text(encoding="utf-8")
    html = Page(html_source)
    md = markdown_page((tmp_path / "r" / "proxskip.md").read_text(encoding="utf-8"))
    md_text = "\n".join(md.chunks)
    html_text = "\n".join(html.chunks)
    for hostile in HOSTILE:
        assert hostile in md_text, hostile  # Markdown shows typed text as typed
        if hostile in HOSTILE_MATHML:
            formula, rest = HOSTILE_MATHML[hostile]
            assert formula in html_source, hostile
            assert rest in html_text, hostile
        else:
            assert hostile in html_text, hostile
    assert "_{" not in html_text and "^{" not in html_text
    tags = html.tags + md.tags
    assert "script" not in tags and "b" not in tags and "img" not in tags
    index = Page((tmp_path / "r" / "index.html").read_text(encoding="utf-8"))
    assert HOSTILE[0] in "".join(index.chunks)  # the claim's title in the index table


@pytest.mark.slow
def test_real_report_pages_show_data_as_text(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(catalog, "claims", lambda: {})
    report.write_report(tmp_path / "r")
    check_pages(tmp_path / "r")


@pytest.mark.parametrize("text", [*HOSTILE, "(_a_) and __b__", "**c** `d` e\\f", "a &amp; b",
                                  "[link](https://x.y) 1 < 2 > 0", "|b|K ≥ 1", "# not a heading",
                                  "> no quote", "- no list", "12. no list", "~~~ no fence"])
def test_markdown_filters_round_trip(text: str) -> None:
    """Prose, a table cell and a code span each render back to the very text."""
    assert markdown_page(report.md_text(text)).chunks == [text]
    table = f"| a |\n|---|\n| {report.md_text(text, cell=True)} |\n"
    assert markdown_page(table).chunks[-1] == text
    assert markdown_page(report.md_code(text)).chunks == [text]
    table = f"| a |\n|---|\n| {report.md_code(text, cell=True)} |\n"
    assert markdown_page(table).chunks[-1] == text


def test_markdown_filters_keep_plain_text_plain() -> None:
    """Only what Markdown would read as markup gets a backslash; code spans stay verbatim."""
    assert report.md_text("t < T, x_i, a & b, [L186–L188]") == "t < T, x_i, a & b, [L186–L188]"
    assert report.md_code("a<b & c*d") == "`a<b & c*d`"
    assert report.web_url("javascript:alert(1)") == "#"
    assert report.web_url("https://arxiv.org/abs/1") == "https://arxiv.org/abs/1"


@pytest.mark.parametrize("expr", [sp.Lt(sp.Symbol("a_b"), 1), sp.Symbol("a_b") * sp.pi,
                                  sp.Max(sp.Symbol("a_b"), sp.Symbol("c"))])
def test_mathml_text_is_escaped(expr: sp.Basic) -> None:
    """A relation's ``<`` and a hostile notation name are text in the MathML, never markup;
    sympy's entities (π, invisible times) come out as characters (well-formed XML)."""
    names = {"a_b": "<script>x</script>&"}
    formula = str(mathtext.to_mathml(expr, names))
    tree = ElementTree.fromstring(formula)
    assert tree.tag == "math"
    assert {el.tag for el in tree.iter()} <= MATHML_TAGS
    assert "<script" not in formula and "&lt;" in formula
    assert "<script>" in "".join(tree.itertext())  # shown as text
