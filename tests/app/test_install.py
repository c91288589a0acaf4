"""``pip install .`` puts ``fedbounds`` and nothing else at the top of site-packages (issue #9
acceptance 4): ``problems/`` and ``verify/`` install as ``fedbounds.problems`` and
``fedbounds.verify``. The wheel is built here without dependencies and inspected."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_folder_is_declared():
    """The package list is explicit (a package-dir mapping cannot be found automatically), so
    a new subpackage must be added to pyproject.toml; this test names the missing one."""
    config = _config()
    folders = {"fedbounds": ROOT / "fedbounds", **{k: ROOT / v
                                                   for k, v in config["package-dir"].items()}}
    found = set()
    for package, folder in folders.items():
        for init in folder.rglob("__init__.py"):
            rel = init.parent.relative_to(folder).parts
            if package == "fedbounds" and rel and rel[0] in ("problems", "verify"):
                continue
            found.add(".".join([package, *rel]))
    found.add("fedbounds.app.templates")
    assert found == set(config["packages"])


def test_wheel_has_fedbounds_as_its_only_top_level_package(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                    "--no-build-isolation", str(ROOT), "-w", str(tmp_path)],
                   check=True, capture_output=True)
    (wheel,) = tmp_path.glob("fedbounds-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"fedbounds"}
    (top_level,) = [n for n in names if n.endswith("top_level.txt")]
    assert zipfile.ZipFile(wheel).read(top_level).decode().split() == ["fedbounds"]
    for module in ("fedbounds/verify/claim.py", "fedbounds/problems/minmax.py",
                   "fedbounds/app/templates/paper.html.j2", "fedbounds/verify/exact/minmax.py"):
        assert module in names
