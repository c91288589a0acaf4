"""Math for the report in the paper's notation: MathML for the HTML pages, LaTeX for Markdown.

Every expression is printed from its sympy form by sympy's presentation MathML printer (no
script: Chromium renders MathML Core natively, offline) or its LaTeX printer; a symbol is
printed as the LaTeX name its paper's :class:`~fedbounds.model.Notation` gives it
(``eta_xl`` → η_{x,l}). :func:`latex_to_mathml` turns those names (a small LaTeX subset:
letters, digits, Greek, ``_``/``^``, ``\\bar``, ``\\hat``, ``\\tilde``, ``\\mathcal``,
``\\mathbb``, ``\\frac``, ``\\sum``, ``\\|`` …) into MathML elements; anything else is shown
as plain text. :func:`prose` replaces code names of symbols inside typed text by their
notation; :func:`typed_parts` finds the LaTeX-style fragments people type in titles and
predictions (``η_{x,l}``, ``‖∇Φ_{1/2L_f}‖²``, ``γ^s_x``, ``T^{-1/4}``) and :func:`typed_mathml`
sets one as MathML, so that no ``_{`` or ``^{`` is left for a reader; snake_case code words
(``slope_floor``, ``eta_xl``, ``N_comm``) stay text.
"""

from __future__ import annotations

import html
import re
import unicodedata
from xml.dom.minidom import Document, Element
from xml.sax.saxutils import escape as xml_escape

import sympy as sp
from markupsafe import Markup, escape
from sympy.printing.mathml import MathMLPresentationPrinter

_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ",
          "varepsilon": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "kappa": "κ",
          "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
          "tau": "τ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
          "ell": "ℓ", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
          "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "nabla": "∇"}
_OPERATORS = {"sum": "∑", "|": "‖", "langle": "⟨", "rangle": "⟩", "cdot": "·", "le": "≤",
              "leq": "≤", "ge": "≥", "geq": "≥", "infty": "∞", "times": "×", "in": "∈",
              "min": "min", "max": "max", "log": "log", "ln": "ln", "exp": "exp",
              "sup": "sup", "inf": "inf", "lim": "lim",
              "{": "{", "}": "}", ",": " ", ";": " ", "!": "", " ": " ", "quad": " "}
_ACCENTS = {"bar": "¯", "overline": "¯", "hat": "^", "widehat": "^", "tilde": "~",
            "widetilde": "~", "dot": "˙", "vec": "→"}
_SCRIPT = {c: chr(0x1D49C + i) for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}
_SCRIPT.update({"B": "ℬ", "E": "ℰ", "F": "ℱ", "H": "ℋ", "I": "ℐ", "L": "ℒ", "M": "ℳ",
                "R": "ℛ"})
_DOUBLE = {c: chr(0x1D538 + i) for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}
_DOUBLE.update({"C": "ℂ", "H": "ℍ", "N": "ℕ", "P": "ℙ", "Q": "ℚ", "R": "ℝ", "Z": "ℤ"})
_COMBINING = "\u0300-\u036f"  # accents typed after a letter (x̄, ŷ): one symbol with it
_TOKEN = re.compile(rf"\\([A-Za-z]+|.)|([A-Za-z][{_COMBINING}]*)|(\d+(?:\.\d+)?)|(\s+)"
                    rf"|(.[{_COMBINING}]*)")


class _LatexParser:
    """A recursive-descent reader of the small LaTeX subset of notation names."""

    def __init__(self, dom: Document, tex: str) -> None:
        self.dom = dom
        self.tokens = [m for m in _TOKEN.finditer(tex) if not m.group(4)]
        self.pos = 0

    def parse(self) -> Element:
        row = self._sequence(stop=None)
        if self.pos != len(self.tokens):
            raise ValueError("unbalanced braces")
        return row

    def _node(self, tag: str, *children: Element | str, **attrs: str) -> Element:
        el = self.dom.createElement(tag)
        for key, value in attrs.items():
            el.setAttribute(key, value)
        for child in children:
            el.appendChild(self.dom.createTextNode(child) if isinstance(child, str) else child)
        return el

    def _peek(self) -> re.Match | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _sequence(self, stop: str | None) -> Element:
        items: list[Element] = []
        while (tok := self._peek()) is not None and tok.group(0) != stop:
            if tok.group(0) in ("_", "^"):
                base = items.pop() if items else self._node("mrow")
                items.append(self._scripts(base))
            else:
                items.append(self._atom())
        if stop is not None:
            if tok is None:
                raise ValueError("missing }")
            self.pos += 1
        return items[0] if len(items) == 1 else self._node("mrow", *items)

    def _scripts(self, base: Element) -> Element:
        sub = sup = None
        while (tok := self._peek()) is not None and tok.group(0) in ("_", "^"):
            self.pos += 1
            if tok.group(0) == "_":
                sub = self._argument()
            else:
                sup = self._argument()
        if sub is not None and sup is not None:
            return self._node("msubsup", base, sub, sup)
        return self._node("msub", base, sub) if sub is not None else self._node("msup", base, sup)

    def _argument(self) -> Element:
        tok = self._peek()
        if tok is None:
            raise ValueError("missing argument")
        if tok.group(0) == "{":
            self.pos += 1
            return self._sequence(stop="}")
        if tok.group(3):  # a digit run: one digit as an argument
            self.pos += 1
            digits = tok.group(3)
            if len(digits) > 1:
                self.tokens.insert(self.pos, _TOKEN.match(digits[1:]))
            return self._node("mn", digits[0])
        return self._atom()

    def _atom(self) -> Element:
        tok = self._peek()
        self.pos += 1
        command, letter, number, _, other = tok.groups()
        if letter:
            return self._letter(letter)
        if number:
            return self._node("mn", number)
        if other == "{":
            return self._sequence(stop="}")
        if other is not None:
            if other[0].isalpha():  # a typed Greek or script letter (η, Φ, 𝓛): an identifier
                return self._letter(other)
            return self._node("mo", {"-": "−", "*": "∗"}.get(other, other))
        if command in _GREEK:
            tag = "mo" if command == "nabla" else "mi"
            return self._node(tag, _GREEK[command])
        if command in _ACCENTS:
            return self._node("mover", self._argument(), self._node("mo", _ACCENTS[command]),
                              accent="true")
        if command in ("mathcal", "mathscr", "mathbb"):
            table = _DOUBLE if command == "mathbb" else _SCRIPT
            inner = self._argument()
            text = "".join(table.get(c, c) for c in _text(inner))
            return self._node("mi", text)
        if command in ("mathrm", "text", "operatorname"):
            return self._node("mi", _text(self._argument()), mathvariant="normal")
        if command == "frac":
            return self._node("mfrac", self._argument(), self._argument())
        if command == "sqrt":
            return self._node("msqrt", self._argument())
        if command in _OPERATORS:
            return self._node("mo", _OPERATORS[command])
        raise ValueError(f"unknown command \\{command}")


    def _letter(self, text: str) -> Element:
        """A letter, with the accents typed after it (x̄, ĉ) as accents over it."""
        element = self._node("mi", text[0])
        for mark in text[1:]:
            if mark not in _COMBINING_ACCENTS:
                return self._node("mi", text)
            element = self._node("mover", element, self._node("mo", _COMBINING_ACCENTS[mark]),
                                 accent="true")
        return element


_COMBINING_ACCENTS = {"\u0304": "¯", "\u0305": "¯", "\u0302": "^", "\u0303": "~",
                      "\u0307": "˙", "\u0306": "˘"}


def _text(el: Element) -> str:
    return "".join(n.data if n.nodeType == n.TEXT_NODE else _text(n) for n in el.childNodes)


def latex_to_mathml(dom: Document, tex: str) -> Element:
    """MathML element of a notation's LaTeX name (the name as text if it is not understood)."""
    try:
        return _LatexParser(dom, tex).parse()
    except (ValueError, IndexError, AttributeError):
        el = dom.createElement("mi")
        el.appendChild(dom.createTextNode(tex.replace("\\", "")))
        return el


class NotationMathML(MathMLPresentationPrinter):
    """sympy's presentation MathML with the paper's symbol names and MathML Core only."""

    def __init__(self, names: dict[str, str]) -> None:
        super().__init__({"mul_symbol": None, "ln_notation": False})
        self.names = names
        raw_text = self.dom.createTextNode  # sympy's: writes its data unescaped

        def escaped_text(data: str):
            # sympy writes some characters as entities (&pi;, &#x221E;, &InvisibleTimes;) and
            # relations as a bare ``<``: decode them, then escape for XML, so that no text
            # (a relation, a notation's name) can ever become markup
            return raw_text(xml_escape(html.unescape(data)))

        self.dom.createTextNode = escaped_text

    def _print_Symbol(self, sym, style="plain"):
        if sym.name in self.names:
            return latex_to_mathml(self.dom, self.names[sym.name])
        return super()._print_Symbol(sym, style)

    def _print_Piecewise(self, expr):
        table = self.dom.createElement("mtable")
        for value, cond in expr.args:
            row = self.dom.createElement("mtr")
            for part in (value, cond):
                cell = self.dom.createElement("mtd")
                if part is sp.true:
                    text = self.dom.createElement("mtext")
                    text.appendChild(self.dom.createTextNode("otherwise"))
                    cell.appendChild(text)
                else:
                    cell.appendChild(self._print(part))
                row.appendChild(cell)
            table.appendChild(row)
        brace = self.dom.createElement("mo")
        brace.appendChild(self.dom.createTextNode("{"))
        out = self.dom.createElement("mrow")
        out.appendChild(brace)
        out.appendChild(table)
        return out


def symbol_names(notation) -> dict[str, str]:
    """{code name: LaTeX name} of a :class:`~fedbounds.model.Notation`."""
    return {name: notation.spec(name).latex or name for name in notation.names()}


def to_mathml(expr: sp.Basic, names: dict[str, str]) -> Markup:
    """An inline ``<math>`` element of ``expr`` (a sympy expression or relation; text is never
    parsed into one)."""
    printer = NotationMathML(names)
    body = printer._print(expr).toxml()
    return Markup(f'<math display="inline">{body}</math>')


def to_latex(expr: sp.Basic, names: dict[str, str]) -> str:
    """``$…$`` LaTeX of ``expr`` with the paper's symbol names (for the Markdown pages)."""
    symbols = {s: names[s.name] for s in expr.free_symbols
               if isinstance(s, sp.Symbol) and s.name in names}
    tex = sp.latex(expr, symbol_names=symbols, mul_symbol=None)
    return f"${tex}$"


def symbol_mathml(name: str, names: dict[str, str]) -> Markup:
    """The ``<math>`` element of one symbol of the notation."""
    return to_mathml(sp.Symbol(name), names)


def code_names(names: dict[str, str]) -> list[str]:
    """The code names a reader must not see: those that differ from their notation and are
    not a plain word (multi-character names with ``_`` or a Greek letter's name)."""
    out = []
    for name, tex in names.items():
        if name == tex or len(name) < 2:
            continue
        if "_" in name or name in _GREEK or re.fullmatch(r"[A-Za-z]+\d+", name):
            out.append(name)
    return sorted(out, key=len, reverse=True)


def prose(text: object, names: dict[str, str], markdown: bool = False) -> Markup | str:
    """Typed text with the notation's code names (``eta_xl``) shown in the notation: HTML
    (escaped, with ``<math>`` for each name) or, with ``markdown``, ``$…$`` LaTeX; the rest of
    the text is left to the caller's Markdown escaping (see :func:`prose_parts`)."""
    if markdown:
        return "".join(part if kind == "text" else f"${names[part]}$"
                       for kind, part in prose_parts(str(text), names))
    return Markup("").join(escape(part) if kind == "text" else symbol_mathml(part, names)
                           for kind, part in prose_parts(str(text), names))


def prose_parts(text: str, names: dict[str, str]) -> list[tuple[str, str]]:
    """``text`` split into ("text", …) and ("symbol", code name) parts."""
    candidates = code_names(names)
    if not candidates:
        return [("text", text)]
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, candidates)) + r")(?![\w(])")
    out: list[tuple[str, str]] = []
    last = 0
    for m in pattern.finditer(text):
        if m.start() > last:
            out.append(("text", text[last:m.start()]))
        out.append(("symbol", m.group(1)))
        last = m.end()
    if last < len(text):
        out.append(("text", text[last:]))
    return out


# ---- LaTeX-style fragments in typed text ---------------------------------------------------------

_PIECE = r"(?:[^\s,;:()\[\]|=·{}]|\{[^{}]*\})"
_FRAGMENT = re.compile(f"{_PIECE}*[_^]{_PIECE}*")
_OPERATOR_WORDS = ("min", "max", "log", "exp", "sup", "inf", "lim", "ln")
_CODE_WORD = re.compile(r"[A-Za-z]{2,}[_^]|[_^][A-Za-z]{3,}")  # slope_floor, N_comm, eta_xl


def _words_outside_braces(fragment: str) -> list[str]:
    return re.findall(r"[A-Za-z]{3,}", re.sub(r"\{[^{}]*\}", " ", fragment))


def _is_math(fragment: str) -> bool:
    """Whether a fragment with ``_``/``^`` is typed math rather than a code word or prose: a
    braced script (``_{``, ``^{``) always is; otherwise no identifier-like word touches a
    script and no word of three letters or more (but min, max, log …) stands outside braces."""
    if "_{" in fragment or "^{" in fragment:
        return True
    if _CODE_WORD.search(fragment):
        return False
    return all(w in _OPERATOR_WORDS for w in _words_outside_braces(fragment))


def _as_tex(fragment: str) -> str:
    """``min``, ``max`` … as operator commands; everything else as typed (TeX reading: an
    unbraced script is one character, ``L_fT^{1/3}`` = L_f·T^{1/3})."""
    return re.sub(r"(?<![\\A-Za-z])(" + "|".join(_OPERATOR_WORDS) + r")(?![A-Za-z])", r"\\\1",
                  fragment)


def typed_parts(text: str) -> list[tuple[str, str, Markup | None]]:
    """``text`` split into ("text", …, None) and ("math", fragment, its ``<math>``) parts: a
    fragment is a run without spaces holding ``_`` or ``^`` that reads as math
    (:func:`_is_math`) and parses (:func:`typed_mathml`); a trailing ``.`` or ``…`` stays text."""
    out: list[tuple[str, str, Markup | None]] = []
    last = 0
    for m in _FRAGMENT.finditer(text):
        fragment = m.group(0).rstrip(".…")
        if not fragment or not _is_math(fragment):
            continue
        markup = typed_mathml(fragment)
        if markup is None:
            continue
        if m.start() > last:
            out.append(("text", text[last:m.start()], None))
        out.append(("math", fragment, markup))
        last = m.start() + len(fragment)
    if last < len(text):
        out.append(("text", text[last:], None))
    return out


def typed_mathml(fragment: str) -> Markup | None:
    """The inline ``<math>`` of a typed LaTeX-style fragment (None if it does not parse). The
    fragment's characters are text nodes (``<`` is ``&lt;``): it can never become markup."""
    dom = Document()
    try:  # decomposed, so that ū and x̄ alike are a letter with an accent over it
        element = _LatexParser(dom, unicodedata.normalize("NFD", _as_tex(fragment))).parse()
    except (ValueError, IndexError, AttributeError):
        return None
    return Markup(f'<math display="inline">{element.toxml()}</math>')
