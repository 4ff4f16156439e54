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
