"""Your own instance from a file: a federated quadratic game or affine operator (``.npz``/``.json``).

Two forms, client-stacked (first axis = client):

* **game** — arrays ``A`` (M, dx, dx) symmetric, ``B`` (M, dx, dy), ``C`` (M, dy, dy) symmetric,
  ``b`` (M, dx), ``c`` (M, dy), optional ``weights`` (M,) ≥ 0 summing to 1: client i's objective
  f_i(x, y) = ½xᵀA_ix + xᵀB_iy − ½yᵀC_iy + b_iᵀx − c_iᵀy (the min-max papers' games);
* **operator** — arrays ``J`` (n, d, d) and ``b`` (n, d): client i's operator F_i(z) = J_iz + b_i
  (ProxSkip-VIP's federated variational inequality, F = (1/n) Σ F_i).

A game also runs as an operator: F_i(x, y) = (∇_x f_i, −∇_y f_i) = J_i z + (b_i, c_i) with
J_i = [[A_i, B_i], [−B_iᵀ, C_i]] (requires equal weights, as ProxSkip's F is the plain mean).
Every array is checked strictly (names, shapes, finiteness, symmetry, weights, and the strong
monotonicity the algorithms' theorems need); a defect is a :class:`BadInput` naming the array.
The exact constants are those of :mod:`.minmax` (L_f, μ, κ, σ_G …) and :mod:`.proxskip`
(μ, ℓ, L, ζ² …).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from fedbounds.errors import BadInput
from fedbounds.params import DEFAULT_MAX_WORK, MEMORY_SHARE, memory_cap, within_cap

from .minmax import MinMaxGame, constants
from .proxskip import AffineVIP, build

ARG = "--problem-file"
GAME = ("A", "B", "C", "b", "c")
OPERATOR = ("J", "b")
OPTIONAL = ("weights",)


BYTES_PER_NUMBER = {".npz": 8, ".json": 4}  # at least this many bytes of file per number


def _file_numbers(file: Path) -> float:
    """An upper bound on the numbers the file holds, read before loading it: the uncompressed
    sizes of a ``.npz``'s members, or the length of a ``.json`` text."""
    if file.suffix == ".npz":
        try:
            with zipfile.ZipFile(file) as archive:
                size = sum(info.file_size for info in archive.infolist())
        except (zipfile.BadZipFile, OSError) as e:
            raise BadInput(ARG, f"{file}: cannot read it ({e})") from None
        return size / BYTES_PER_NUMBER[".npz"]
    return file.stat().st_size / BYTES_PER_NUMBER.get(file.suffix, 1)


def read_arrays(path: str | Path, max_work: float = DEFAULT_MAX_WORK) -> dict[str, np.ndarray]:
    """The arrays of a ``.npz`` file or a ``.json`` object of nested lists (a file too large
    for the memory cap of ``max_work`` is refused before it is read)."""
    file = Path(path)
    if not file.is_file():
        raise BadInput(ARG, f"{path}: no such file")
    if file.suffix in BYTES_PER_NUMBER:
        numbers = _file_numbers(file)
        within_cap(ARG, f"the size of {file.name} (numbers it may hold)", numbers,
                   memory_cap(max_work), needed=numbers * MEMORY_SHARE)
    try:
        if file.suffix == ".npz":
            with np.load(file, allow_pickle=False) as data:
                raw = {k: data[k] for k in data.files}
        elif file.suffix == ".json":
            raw = json.loads(file.read_text())
            if not isinstance(raw, dict):
                raise BadInput(ARG, f"{path}: expected a JSON object of named arrays")
        else:
            raise BadInput(ARG, f"{path}: expected a .npz or .json file")
    except (ValueError, OSError) as e:
        raise BadInput(ARG, f"{path}: cannot read it ({e})") from None
    out = {}
    for name, value in raw.items():
        _real_numbers(name, value)
        try:
            out[name] = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise BadInput(ARG, f"array {name!r} is not numeric") from None
    return out


def _real_numbers(name: str, value: object) -> None:
    """``value`` holds real numbers only: an integer or float array (``.npz``), or nested
    lists of JSON numbers; ``true``/``false``, booleans and complex numbers are refused (numpy
    would read them as 1, 0 and the real part)."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "iuf":
            raise BadInput(ARG, f"array {name!r} holds {value.dtype} values; expected real "
                                f"numbers (integer or float)")
        return
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, bool) or not isinstance(item, int | float):
            shown = json.dumps(item) if isinstance(item, bool | str | None) else type(item)
            raise BadInput(ARG, f"array {name!r} holds {shown}; expected real numbers "
                                f"(nested lists of JSON numbers)")


def _finite(arrays: dict[str, np.ndarray]) -> None:
    for name, a in arrays.items():
        if not np.all(np.isfinite(a)):
            raise BadInput(ARG, f"array {name!r} contains NaN or infinite values")


def _shape(name: str, a: np.ndarray, expected: tuple[int, ...], meaning: str) -> None:
    if a.shape != expected:
        raise BadInput(ARG, f"array {name!r} has shape {a.shape}; expected {expected} "
                            f"({meaning})")


def _symmetric(name: str, a: np.ndarray) -> None:
    gap = np.abs(a - a.transpose(0, 2, 1))
    scale = max(1.0, float(np.max(np.abs(a))))
    if np.max(gap) > 1e-12 * scale:
        i = int(np.argmax(gap.reshape(len(a), -1).max(axis=1)))
        raise BadInput(ARG, f"array {name!r} is not symmetric: {name}[{i}] differs from its "
                            f"transpose by {float(np.max(gap[i])):.3g}")


def form(arrays: dict[str, np.ndarray]) -> str:
    """``game`` or ``operator``, from the array names (unknown names are refused)."""
    names = set(arrays)
    for kind, required in (("game", GAME), ("operator", OPERATOR)):
        if set(required) <= names and names <= set(required) | set(OPTIONAL):
            return kind
    raise BadInput(ARG, f"arrays {sorted(names)}: expected a game ({', '.join(GAME)}[, weights]) "
                        f"or an operator ({', '.join(OPERATOR)})")


def game(arrays: dict[str, np.ndarray], name: str) -> MinMaxGame:
    """A :class:`MinMaxGame` with its exact constants; μ = min_i λ_min(C_i) must be > 0."""
    _finite(arrays)
    A, B, C, b, c = (arrays[k] for k in GAME)
    if A.ndim != 3 or A.shape[1] != A.shape[2]:
        raise BadInput(ARG, f"array 'A' has shape {A.shape}; expected (M, dx, dx)")
    M, dx = A.shape[:2]
    if C.ndim != 3 or C.shape[1] != C.shape[2] or C.shape[0] != M:
        raise BadInput(ARG, f"array 'C' has shape {C.shape}; expected (M, dy, dy) with M = {M}")
    dy = C.shape[1]
    _shape("B", B, (M, dx, dy), "M, dx, dy")
    _shape("b", b, (M, dx), "M, dx")
    _shape("c", c, (M, dy), "M, dy")
    _symmetric("A", A)
    _symmetric("C", C)
    p = arrays.get("weights", np.full(M, 1.0 / M))
    _shape("weights", p, (M,), "one weight per client")
    if np.any(p < 0) or abs(float(p.sum()) - 1) > 1e-12:
        raise BadInput(ARG, "array 'weights' must be nonnegative and sum to 1")
    g = MinMaxGame(name=name, A=A, B=B, C=C, b=b, c=c, p=p, z0=np.zeros(dx + dy))
    # σ_G, ζ² … exist only when the clients share their Hessians (otherwise the dissimilarity
    # grows with ‖z‖ and no finite constant bounds it): such entries are left out, not null
    try:
        exact = constants(g)
    except ArithmeticError:  # e.g. L_f² beyond the doubles
        raise BadInput(ARG, "the game's exact constants (L_f, μ, L = L_f + L_f²/μ …) overflow "
                            "a double; rescale the arrays") from None
    consts = {k: v for k, v in exact.items() if np.isfinite(v)}
    if consts["mu"] <= 0:
        raise BadInput(ARG, f"array 'C' is not positive definite (μ = min_i λ_min(C_i) = "
                            f"{consts['mu']:.3g}): the games' theorems need μ > 0")
    return MinMaxGame(**{**{k: v for k, v in g.__dict__.items() if not k.startswith("_")},
                         "constants": consts})


def operator(arrays: dict[str, np.ndarray], name: str) -> AffineVIP:
    """An :class:`AffineVIP` with its exact constants (the mean operator strongly monotone)."""
    _finite(arrays)
    J, b = arrays["J"], arrays["b"]
    if J.ndim != 3 or J.shape[1] != J.shape[2]:
        raise BadInput(ARG, f"array 'J' has shape {J.shape}; expected (n, d, d)")
    _shape("b", b, J.shape[:2], "n, d")
    try:
        return build(name, J, b, params={})
    except ValueError as e:
        raise BadInput(ARG, f"array 'J': {e}") from None


def game_as_operator(g: MinMaxGame, name: str) -> AffineVIP:
    """The game's operator F_i(z) = (∇_x f_i, −∇_y f_i) as an :class:`AffineVIP`, with the game's
    constants (L_f, κ …) kept beside the operator's (μ, ℓ …)."""
    if not np.allclose(g.p, g.p[0]):
        raise BadInput(ARG, "array 'weights': the operator form (ProxSkip's F = (1/n) Σ F_i) "
                            "needs equal weights")
    J = np.concatenate([np.concatenate([g.A, g.B], axis=2),
                        np.concatenate([-g.B.transpose(0, 2, 1), g.C], axis=2)], axis=1)
    vip = operator({"J": J, "b": np.concatenate([g.b, g.c], axis=1)}, name)
    extra = {k: v for k, v in g.constants.items() if k not in vip.constants}
    return AffineVIP(**{**vip.__dict__, "constants": {**vip.constants, **extra}})


def check_size(arrays: dict[str, np.ndarray], max_work: float = DEFAULT_MAX_WORK) -> None:
    """Refuse an instance whose exact constants (eigenvalue problems of each client's d × d
    matrix, as in :mod:`.proxskip`) would take more than ``max_work`` (``--max-work``)."""
    square = arrays["J"] if "J" in arrays else arrays["A"]
    clients = float(square.shape[0]) if square.ndim >= 1 else 1.0
    d = float(square.shape[-1]) if square.ndim == 3 else 1.0
    if "C" in arrays and arrays["C"].ndim == 3:
        d += arrays["C"].shape[-1]
    within_cap(ARG, "the work of its exact constants, clients × (3d³ + 5e5)",
               clients * (3 * d**3 + 5e5), max_work)


def load(path: str | Path, target: type, *, max_work: float = DEFAULT_MAX_WORK
         ) -> MinMaxGame | AffineVIP:
    """The instance in ``path`` as a ``target`` (:class:`MinMaxGame` or :class:`AffineVIP`),
    refused (exit 2) when it is too large for ``max_work``."""
    arrays = read_arrays(path, max_work)
    kind = form(arrays)
    check_size(arrays, max_work)
    name = f"file:{Path(path).name}"
    if target is MinMaxGame:
        if kind != "game":
            raise BadInput(ARG, "this algorithm runs on games (arrays A, B, C, b, c); the file "
                                "holds an operator (J, b)")
        return game(arrays, name)
    if target is AffineVIP:
        return operator(arrays, name) if kind == "operator" else game_as_operator(
            game(arrays, name), name)
    raise BadInput(ARG, f"this algorithm does not run on instances from files ({target.__name__})")


def constants_of(path: str | Path) -> dict[str, dict[str, float]]:
    """Exact constants of the file's instance: ``game`` (if it is a game) and ``operator``."""
    arrays = read_arrays(path)
    out: dict[str, dict[str, float]] = {}
    kind = form(arrays)
    check_size(arrays)
    if kind == "game":
        g = game(arrays, f"file:{Path(path).name}")
        out["game"] = dict(g.constants)
        if np.allclose(g.p, g.p[0]):
            out["operator"] = _scalars(game_as_operator(g, g.name).constants)
    else:
        out["operator"] = _scalars(operator(arrays, f"file:{Path(path).name}").constants)
    return out


def _scalars(c: dict) -> dict[str, float]:
    return {k: float(v) for k, v in c.items() if np.ndim(v) == 0}
