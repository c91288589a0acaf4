"""The report as a reader's browser shows it: every page of a small report (stand-in claims
with figures in every paper, the real statements and findings, a stand-in complexity row)
opened in headless Chromium through selenium.

Asserted per page: no console error; every image loaded (a figure or thumbnail that failed
shows naturalWidth 0) and every link resolves (a file of the report, an anchor on its page);
every statement's text and one MathML formula per condition and bound term are in the rendered
DOM; the text a reader sees (``innerText``, less the ids and commands a user types:
``code.id``, ``code.cmd``) has no sympy syntax (``**``, ``Max(``, ``Min(``, ``Piecewise(``,
``sqrt(``), no raw LaTeX-style script (``_{``, ``^{``: typed names such as ``η_{x,l}`` are set
as MathML, checked on real claim titles and predictions) and no code name of a symbol
(``eta_xl``, ``kappa``). Screenshots of the index and one paper page go to
``artifacts/browser/`` (git-ignored).

Skipped, with the reason, where no Chromium, chromedriver or selenium exists, unless
``FEDBOUNDS_REQUIRE_BROWSER=1`` (``.ci/run`` installs Chromium and sets it): then it fails.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import unquote, urlparse

import numpy as np
import pytest
import sympy as sp

from fedbounds import registry
from fedbounds.app import complexity_rows, mathtext, report
from fedbounds.verify import catalog
from fedbounds.verify.claim import FigureSpec, Interval, Measurement, RunConfig, UpperBound, claim

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "browser"
FORBIDDEN = ("**", "Max(", "Min(", "Piecewise(", "sqrt(", "_{", "^{")
# real claims whose titles, predictions and sources carry typed LaTeX-style names
# (T^{-1/4}, γ^s_x, ‖∇Φ_{1/2L_f}‖², η_x, ū_{t+1}): stand-ins with their texts join the report
REAL_TEXTS = ("fednorm.p16", "sagda.p8a", "fedsgda.p13")
VISIBLE_TEXT = """
const hidden = document.querySelectorAll('code.id, code.cmd');
hidden.forEach(e => e.dataset.keep = e.textContent);
hidden.forEach(e => e.textContent = '');
const text = document.body.innerText;
hidden.forEach(e => e.textContent = e.dataset.keep);
return text;
"""


def _need(reason: str) -> None:
    if os.environ.get("FEDBOUNDS_REQUIRE_BROWSER") == "1":
        pytest.fail(f"FEDBOUNDS_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def driver():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if chromium is None or chromedriver is None:
        _need("no headless browser: install Debian's chromium and chromium-driver "
              "(apt-get install -y chromium chromium-driver)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _need("selenium is not installed (pip install -e '.[test]')")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--allow-file-access-from-files", "--window-size=1200,900",
                 "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(service=Service(chromedriver), options=options)
    try:
        yield browser
    finally:
        browser.quit()


def _stand_in(claim_id: str, title: str, predicted: float, logy: bool) -> object:
    """A claim whose statistic is a noisy fit: confirmed unless ``predicted`` is off."""

    @claim(claim_id, title=title, prediction=f"the rate is {predicted} (eta_xl fixed)",
           source="test", provenance="conjecture", rule=Interval("predicted", 0.05),
           params={"predicted": predicted}, perturb={"predicted": predicted + 1},
           figure=FigureSpec("fit of x_t against T^{1/2}", "round t", "‖x_t‖²", logy=logy))
    def measure(params, seed):
        t = np.arange(1, 30)
        x = 0.9**t * (1 + 1e-3 * np.random.default_rng(seed).standard_normal(t.size))
        rate = float(np.exp(np.polyfit(t, np.log(x), 1)[0]))
        series = {f"replica {i}": (t.tolist(), (x * (1 + 0.01 * i)).tolist()) for i in range(10)}
        return Measurement(rate, (rate - 1e-3, rate + 1e-3), series=series,
                           hlines={"predicted rate": predicted, "bound": 1.0},
                           evidence={"rate": rate}, run=RunConfig("a", "b", {"eta_xl": 0.1}))

    return measure


def _bounded(claim_id: str) -> object:
    @claim(claim_id, title="observed/bound stays below 1", prediction="ratio ≤ 1",
           source="test", provenance="paper", rule=UpperBound(1.0),
           figure=FigureSpec("option (0 = FSGDA)", "option", "ratio", kind="scatter"))
    def measure(params, seed):
        return Measurement(1.3, series={"ratio": ([0, 1, 2], [0.4, 0.9, 1.3])})

    return measure


def _with_real_texts(claim_id: str) -> object:
    """A stand-in measurement under a real claim's id, title, prediction, source and
    provenance (the texts a reader sees are the real ones)."""
    real = catalog.claims()[claim_id]

    @claim(claim_id, title=real.title, prediction=real.prediction, source=real.source,
           provenance=real.provenance, derivation=real.derivation,
           exact_derivation=real.exact_derivation, rule=UpperBound(1.0),
           figure=FigureSpec(real.figure.title, real.figure.xlabel, real.figure.ylabel))
    def measure(params, seed):
        return Measurement(0.5, series={"ratio": ([1, 2, 4], [0.2, 0.4, 0.5])})

    return measure


def _derivation(theorem) -> SimpleNamespace:
    """A stand-in complexity derivation with real orders in the theorem's symbols."""
    symbols = sorted(theorem.free_symbols(), key=lambda s: s.name)[:3]
    order = sp.Max(*[s**sp.Rational(1, 2) for s in symbols]) if len(symbols) > 1 else sp.S.One
    row = SimpleNamespace(cost="communication rounds", derived_order=order / symbols[0] ** 2,
                          claimed=order, verdict="disagree",
                          detail=f"fails e.g. at {symbols[0].name}=0.5")
    check = SimpleNamespace(condition="(9)", source="Theorem 1", verdict="threshold",
                            detail=f"holds for T >= 10 at {symbols[-1].name}=2")
    return SimpleNamespace(regimes=[SimpleNamespace(name="general", note="", rows=[row])],
                           schedule=[check])


@pytest.fixture(scope="module")
def small_report(tmp_path_factory) -> Path:
    specs = {}
    for paper in registry.papers():
        for spec in (_stand_in(f"{paper}.p901", "geometric rate of η_{x,l} steps", 0.9, True),
                     _stand_in(f"{paper}.p902", "a wrong rate", 0.5, False),
                     _bounded(f"{paper}.p903")):
            specs[spec.id] = spec
    for claim_id in REAL_TEXTS:
        specs[claim_id] = _with_real_texts(claim_id)
    out = tmp_path_factory.mktemp("browser") / "report"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(catalog, "claims", lambda: specs)
        patch.setattr(complexity_rows, "derive", _derivation)
        report.write_report(out, readme=False)
    return out


def _pages(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.html"))


def _check_links(driver, page: Path) -> None:
    hrefs = driver.execute_script("return [...document.querySelectorAll('a[href]')]"
                                  ".map(a => a.href)")
    for href in hrefs:
        url = urlparse(href)
        if url.scheme in ("http", "https"):
            continue  # the paper's own address: not part of the report
        assert url.scheme == "file", href
        target = Path(unquote(url.path))
        assert target.is_file(), f"{page.name}: link to missing {target.name}"
        if url.fragment and target.suffix == ".html":
            html = target.read_text(encoding="utf-8")
            assert f'id="{unquote(url.fragment)}"' in html, f"{page.name}: no anchor {href}"


def test_every_page_renders_cleanly(driver, small_report: Path) -> None:
    pages = _pages(small_report)
    assert {p.name for p in pages} >= {"index.html", "sagda.html", "feddro.html"}
    driver.get_log("browser")  # drop anything from before
    leaks: list[tuple[str, str, str]] = []
    for page in pages:
        driver.get(page.as_uri())
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, (page.name, errors)
        broken = driver.execute_script(
            "return [...document.images].filter(i => !i.complete || i.naturalWidth === 0)"
            ".map(i => i.getAttribute('src'))")
        assert not broken, (page.name, broken)
        assert driver.execute_script("return document.images.length") > 0, page.name
        _check_links(driver, page)
        text = driver.execute_script(VISIBLE_TEXT)
        leaks += [(page.name, token, _around(text, token)) for token in FORBIDDEN
                  if token in text]
        names = (report.paper_names(page.stem) if page.stem in registry.papers()
                 else {n: t for p in registry.papers() for n, t in report.paper_names(p).items()})
        for name in mathtext.code_names(names):
            found = re.search(rf"(?<![\w.]){re.escape(name)}(?![\w(])", text)
            if found:
                leaks.append((page.name, name, _around(text, name)))
    assert not leaks, "\n".join(map(repr, leaks))


def test_statements_and_formulas_are_in_the_dom(driver, small_report: Path) -> None:
    for paper in registry.papers():
        driver.get((small_report / f"{paper}.html").as_uri())
        statements = driver.execute_script(
            "return [...document.querySelectorAll('p.statement')].map(p => p.innerText)")
        theorems = [t for t in registry.theorems().values() if t.paper == paper]
        assert len(statements) == len(theorems)
        names = report.paper_names(paper)
        for theorem, shown in zip(theorems, statements, strict=True):
            expected = "".join(part if kind == "text" else "" for kind, part in
                               mathtext.prose_parts(theorem.statement, names))
            assert _words(expected) <= _words(shown), theorem.id
        formulas = driver.execute_script("return document.querySelectorAll('math').length")
        wanted = sum(len(t.conditions) + len(t.bound) for t in theorems)
        assert formulas >= wanted, (paper, formulas, wanted)
        widths = driver.execute_script("return [...document.querySelectorAll('table math')]"
                                       ".slice(0, 20).map(m => m.getBoundingClientRect().width)")
        assert all(w > 0 for w in widths), "MathML not laid out"


def test_screenshots(driver, small_report: Path) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for page, name in (("index.html", "index.png"), ("sagda.html", "paper-sagda.png")):
        driver.get((small_report / page).as_uri())
        height = driver.execute_script("return document.body.scrollHeight")
        driver.set_window_size(1200, min(max(height, 900), 4000))
        assert driver.save_screenshot(str(ARTIFACTS / name))
        assert (ARTIFACTS / name).stat().st_size > 10_000
    driver.set_window_size(1200, 900)


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[A-Za-z]{4,}", text)}


def _around(text: str, token: str) -> str:
    i = text.find(token)
    return " ".join(text[max(0, i - 60):i + 60].split())


def test_real_claim_texts_are_set_as_math(driver, small_report: Path) -> None:
    """The typed names of real claims' titles and predictions are MathML in their sections;
    the section's visible text has no raw ``_{`` or ``^{``."""
    for claim_id in REAL_TEXTS:
        driver.get((small_report / f"{claim_id.split('.')[0]}.html").as_uri())
        shown = driver.execute_script(
            "const s = document.getElementById(arguments[0]);"
            "return s && [s.querySelectorAll('h3 math, dd math').length, s.innerText];",
            claim_id)
        assert shown, f"no section {claim_id}"
        formulas, text = shown
        assert formulas > 0, claim_id
        assert "_{" not in text and "^{" not in text, (claim_id, _around(text, "_{"))
