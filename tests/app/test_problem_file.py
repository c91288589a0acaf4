"""Your own instance (issue #10 acceptance 3): a two-client game written by hand runs through
``fedbounds run --problem-file``; its first iterates under GDA and Local GDA (K = 2) and its
exact constants μ, ℓ, L_f are reproduced here by independent arithmetic; defective files exit 2
naming the array."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.linalg
from typer.testing import CliRunner

from fedbounds.app.cli import app

# client i: f_i(x, y) = ½A_i x² + B_i x y − ½C_i y² + b_i x − c_i y  (x, y scalars)
GAME = {"A": [[[2.0]], [[1.0]]], "B": [[[1.0]], [[0.5]]], "C": [[[1.0]], [[3.0]]],
        "b": [[1.0], [-1.0]], "c": [[0.5], [2.0]]}
GAMMA = 0.1


def _operators():
    """F_i(z) = (∂_x f_i, −∂_y f_i) = J_i z + q_i, written out for scalar blocks."""
    J = [np.array([[a[0][0], bb[0][0]], [-bb[0][0], c[0][0]]])
         for a, bb, c in zip(GAME["A"], GAME["B"], GAME["C"], strict=True)]
    q = [np.array([b[0], c[0]]) for b, c in zip(GAME["b"], GAME["c"], strict=True)]
    return J, q


def _run(tmp_path, algorithm: str, *sets: str) -> dict:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(GAME))
    sets = sets or (f"gamma={GAMMA}",)
    result = CliRunner().invoke(app, ["run", algorithm, "--problem-file", str(path), "--set",
                                      *sets, "--rounds", "3", "--iterates", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_gda_iterates_by_hand(tmp_path):
    J, q = _operators()
    z, expected = np.zeros(2), [np.zeros(2)]
    for _ in range(3):
        z = z - GAMMA * np.mean([Ji @ z + qi for Ji, qi in zip(J, q, strict=True)], axis=0)
        expected.append(z)
    doc = _run(tmp_path, "projected-gda")
    np.testing.assert_allclose(doc["metrics"]["iterate"], expected, rtol=1e-12, atol=1e-15)


def test_local_gda_two_local_steps_by_hand(tmp_path):
    J, q = _operators()
    z, expected = np.zeros(2), [np.zeros(2)]
    for _ in range(3):
        local = []
        for Ji, qi in zip(J, q, strict=True):
            zi = z.copy()
            for _ in range(2):
                zi = zi - GAMMA * (Ji @ zi + qi)
            local.append(zi)
        z = np.mean(local, axis=0)
        expected.append(z)
    doc = _run(tmp_path, "local-gda", f"gamma={GAMMA}", "H=2")
    np.testing.assert_allclose(doc["metrics"]["iterate"], expected, rtol=1e-12, atol=1e-15)


def test_printed_constants_by_hand(tmp_path):
    J, _ = _operators()
    doc = _run(tmp_path, "projected-gda")["constants"]
    # μ: smallest eigenvalue of sym J_i = diag(A_i, C_i) over clients
    assert doc["mu"] == pytest.approx(min(2.0, 1.0, 1.0, 3.0), rel=1e-12)
    # ℓ: largest λ with J_iᵀJ_i v = λ sym(J_i) v (star-cocoercivity of an affine operator)
    ell = max(scipy.linalg.eigh(Ji.T @ Ji, (Ji + Ji.T) / 2, eigvals_only=True)[-1] for Ji in J)
    assert doc["ell"] == pytest.approx(ell, rel=1e-10)
    # L_f: largest spectral norm of the Hessians [[A_i, B_i], [B_i, −C_i]]
    L_f = max(np.linalg.norm(np.array([[a, bb], [bb, -c]]), 2)
              for a, bb, c in [(2.0, 1.0, 1.0), (1.0, 0.5, 3.0)])
    assert doc["L_f"] == pytest.approx(L_f, rel=1e-12)


def test_the_game_runs_as_a_game_too(tmp_path):
    doc = _run(tmp_path, "fsgda", "eta_xl=0.1", "eta_yl=0.1")
    assert doc["constants"]["mu"] == pytest.approx(1.0)  # min_i λ_min(C_i)
    assert len(doc["metrics"]["iterate"]) == 4


def test_constants_command(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(GAME))
    result = CliRunner().invoke(app, ["constants", "--problem-file", str(path), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["game"]["mu"] == pytest.approx(1.0) and doc["operator"]["ell"] > 0
    assert "zeta_sq" not in doc["game"]  # Hessians differ: no finite ζ², left out (not null)


@pytest.mark.parametrize(("change", "named"), [
    ({"A": [[[2.0, 1.0], [0.0, 2.0]], [[1.0, 0.0], [0.0, 1.0]]],
      "B": [[[1.0], [0.0]], [[0.5], [0.0]]], "b": [[1.0, 0.0], [-1.0, 0.0]]}, "'A' is not symmetric"),
    ({"C": [[[float("nan")]], [[3.0]]]}, "'C' contains NaN"),
    ({"b": [[1.0, 2.0], [-1.0, 0.0]]}, "'b' has shape (2, 2)"),
    ({"C": [[[-1.0]], [[3.0]]]}, "'C' is not positive definite"),
])
def test_bad_files_exit_2_naming_the_array(tmp_path, change, named):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**GAME, **change}).replace("NaN", "NaN"))
    result = CliRunner().invoke(app, ["run", "projected-gda", "--problem-file", str(path)])
    assert result.exit_code == 2, result.output
    assert named in " ".join(result.output.split())


def test_npz_and_operator_form(tmp_path):
    J, q = _operators()
    path = tmp_path / "op.npz"
    np.savez(path, J=np.array(J), b=np.array(q))
    result = CliRunner().invoke(app, ["constants", "--problem-file", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["operator"]["mu"] == pytest.approx(1.0)
    result = CliRunner().invoke(app, ["run", "fsgda", "--problem-file", str(path)])
    assert result.exit_code == 2 and "runs on games" in " ".join(result.output.split())
