"""The architecture as behaviour: imports run one way, faces use one API, modules stay readable.

- import-linter's contracts (``[tool.importlinter]`` in pyproject.toml): faces -> review ->
  stages -> base, and the forbidden imports (readers never import topics, the store or widgets;
  topics never import the store, widgets or the review; widgets never import sqlite3);
- notebooks import only ``workbench``, ``workbench.widgets`` and ``IPython.display`` (they are
  not modules, so import-linter cannot see them);
- no module uses another package's private names (``from workbench.x import _y``, ``obj._y``
  on anything but ``self``/``cls``);
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "workbench"
NOTEBOOK_IMPORTS = {"workbench", "workbench.widgets", "IPython.display"}
# Private attributes of other libraries' objects that the workbench must reach, and why.
ALLOWED_PRIVATE = {
    ("workbench/_runtime/numba_cache.py", "_cache"): "numba dispatchers' cache switch (UMAP compiles once per machine)",
}


def modules():
    return sorted(PACKAGE.rglob("*.py"))


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "broken" not in result.stdout.lower().split("contracts:")[-1] or "0 broken" in result.stdout


def _imports(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_import_only_the_public_api(notebook):
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    tree = ast.parse(code)
    assert _imports(tree) <= NOTEBOOK_IMPORTS, f"{notebook.name} imports {_imports(tree) - NOTEBOOK_IMPORTS}"
    defined = [type(n).__name__ for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defined == [], f"{notebook.name}: no def or class in a notebook; put it in the package"
    private = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr.startswith("_")]
    assert private == [], f"{notebook.name} uses private names {private}"


def _package_of(module: Path) -> str:
    rel = module.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if module.name != "__init__.py" else parts[:-1])


def _private_uses(module: Path) -> list[str]:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    here = _package_of(module)
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            level_pkg = here.split(".")[: len(here.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*level_pkg, node.module or ""] if node.level else [node.module or ""]).strip(".")
            if not target.startswith("workbench"):
                continue
            stage = ".".join(here.split(".")[:2])  # a stage package and its subpackages are one package
            same_package = target == stage or target.startswith(stage + ".")
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__") and not same_package:
                    problems.append(f"line {node.lineno}: from {target} import {alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if (module.relative_to(ROOT).as_posix(), node.attr) in ALLOWED_PRIVATE:
                continue
            problems.append(f"line {node.lineno}: ._{node.attr[1:]} on {ast.unparse(owner)}")
    return problems


@pytest.mark.parametrize("module", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_uses_anothers_private_names(module):
    assert _private_uses(module) == []


# Modules that cannot change what a kept result holds: errors, the version (in every key
# already), how the work is spread over processes and cores, memory given back, files' modes.
CANNOT_CHANGE_RESULTS = {"errors", "_version", "_runtime", "_runtime.halves", "_runtime.memory", "_runtime.numba_cache",
                         "_runtime.fsutil"}


def _not_in_its_key(code: tuple[str, ...], also_covered: tuple[str, ...] = ()) -> list[str]:
    """The workbench modules the files of ``code`` import that neither ``code`` nor
    ``also_covered`` lists, and that could change what they make."""
    def covered(module: str) -> bool:
        path = module.replace(".", "/")
        return any(path == name.removesuffix(".py") or path.startswith(f"{name}/") for name in code + also_covered)

    files = [p for name in code for p in ((PACKAGE / name).glob("*.py") if (PACKAGE / name).is_dir()
                                          else [PACKAGE / name])]
    missing = set()
    for path in files:
        package = list(path.parent.relative_to(PACKAGE).parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                module = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
                if module and module not in CANNOT_CHANGE_RESULTS and not covered(module):
                    missing.add(f"{path.relative_to(PACKAGE)} imports {module}")
    return sorted(missing)


def test_kept_results_are_keyed_by_all_the_code_that_makes_them():
    """The record cache serves a file's papers, and a build keeps its topics and map, as the
    code in their keys made them: every workbench module that code imports must be in the key
    too, or a change there (ids, titles, the neighbour graph) would be served from a stale cache."""
    from workbench.readers.cache import READING_CODE
    from workbench.review.build._reuse import LAYOUT_CODE, TOPICS_CODE

    assert _not_in_its_key(READING_CODE) == [], "add these to READING_CODE (workbench/readers/cache.py)"
    # (the reading code's effects reach the topics' key as the texts)
    assert _not_in_its_key(TOPICS_CODE, READING_CODE) == [], "add these to TOPICS_CODE (workbench/review/build/_reuse.py)"
    assert _not_in_its_key(LAYOUT_CODE) == [], "add these to LAYOUT_CODE (workbench/review/build/_reuse.py)"


def test_importing_the_workbench_leaves_the_heavy_libraries_for_later():
    """``import workbench`` (every command, every kernel) loads none of the libraries that take
    seconds to import; the stages that use them import them (scikit-learn alone took ~1.4 s)."""
    heavy = ["sklearn", "bertopic", "umap", "hdbscan", "torch", "numba", "pynndescent", "sentence_transformers"]
    code = f"import sys, workbench; print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each workbench module -> the workbench modules it imports, wherever the import stands (at
    the top or inside a function: an import inside a function still ties the two modules)."""
    names = {_module_name(p): p for p in modules()}
    graph: dict[str, set[str]] = {name: set() for name in names}
    for name, path in names.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    found = sub if sub in names else target
                    if found in names and found != name:
                        graph[name].add(found)
            elif isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names if a.name in names and a.name != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_one_that_imports_it_back():
    """No import cycle among the workbench's modules, directly or through others: a module that
    needs another's names below it in the pipeline gets them handed over or moved down."""
    assert cycles(import_graph()) == []
