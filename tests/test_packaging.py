"""Set-up files agree with each other: environment.yml mirrors pyproject.toml."""

import re
import tomllib

from conftest import ROOT


def _name(spec: str) -> str:
    return re.split(r"[<>=!\[ ;]", spec.strip().strip('"'), maxsplit=1)[0].lower()


def test_environment_yml_lists_every_dependency_of_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(d) for d in project["dependencies"] + project["optional-dependencies"]["test"]}
    env = (ROOT / "environment.yml").read_text()
    listed = {_name(line.split("- ", 1)[1]) for line in env.splitlines() if line.strip().startswith("- ") and "pip" not in line.split("- ", 1)[1][:4]}
    missing = wanted - listed
    assert not missing, f"environment.yml lacks {sorted(missing)}"
    assert "torch==2.13.0" in env


def test_required_packages_are_declared():
    deps = {_name(d) for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}
    assert {"jupyterlab", "ipywidgets", "scikit-learn", "umap-learn", "bertopic"} <= deps


def test_the_widgets_static_files_are_package_data():
    """The screening card's script and style sheet are files of the package, declared so a
    wheel carries them (an anywidget reads them when the view is built)."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "static/*.js" in setuptools["package-data"]["workbench.widgets"]
    static = ROOT / "workbench" / "widgets" / "static"
    assert (static / "screencard.js").exists() and (static / "screencard.css").exists()


def test_a_wheel_carries_the_screening_cards_files(tmp_path):
    import subprocess
    import sys
    import zipfile

    import pytest

    import shutil

    source = tmp_path / "source"  # a copy: building writes build/ and *.egg-info beside the sources
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "workbench", source / "workbench", ignore=shutil.ignore_patterns("__pycache__"))
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                          "-w", str(tmp_path), str(source)], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        pytest.skip(f"no wheel could be built here: {out.stderr[-300:]}")
    (wheel,) = tmp_path.glob("workbench-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"workbench/widgets/static/screencard.js", "workbench/widgets/static/screencard.css"} <= names
