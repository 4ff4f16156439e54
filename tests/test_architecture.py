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


def test_the_code_passes_the_linter():
    """pyflakes' checks and Python's own errors (pyproject.toml's [tool.ruff.lint]): no unused
    import or name, no undefined name, in the package, its tests, benchmarks, tools and notebooks."""
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    result = subprocess.run([str(ruff), "check", "--no-cache", "workbench", "tests", "benchmarks", "tools", "notebooks"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


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


# What hurts a reader, flagged instead of line counts: long signatures, long chains of string
# tests, and one piece of knowledge written in several places.

#: Signatures that may be long, and why.
LONG_SIGNATURES = {
    "workbench/topics/model.py:TopicModel.__init__": "a scikit-learn estimator: each hyperparameter a keyword",
    "workbench/space/_nndescent.py:_nn_descent.nn_descent": "pynndescent's numba kernel, called as pynndescent calls it",
    "workbench/space/_nndescent.py:_nn_descent_cosine": "pynndescent's numba kernel",
    "workbench/space/_nndescent.py:_internal": "pynndescent's numba kernel",
    "workbench/review/build/_build.py:build": "what users call (workbench.build, as the README shows): each "
    "keyword a `workbench build` option (--review, --embedder, --seed, --input-format, --dask, --follow-links, "
    "--database...) that a notebook sets by name; an options object would be one more import for a one-line build",
}
MAX_PARAMETERS = 8


def _functions(tree: ast.AST, prefix: str = ""):
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node
            yield from _functions(node, prefix + node.name + ".")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, prefix + node.name + ".")


def _parameters(function: ast.FunctionDef) -> list[str]:
    args = function.args
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs if a.arg not in ("self", "cls")]


def test_no_function_takes_more_than_eight_parameters():
    """More than eight parameters: group them into a small options object (or say why not above)."""
    long = []
    for module in modules():
        for name, function in _functions(ast.parse(module.read_text(encoding="utf-8"))):
            where = f"{module.relative_to(ROOT)}:{name}"
            if len(_parameters(function)) > MAX_PARAMETERS and where not in LONG_SIGNATURES:
                long.append(f"{where} ({len(_parameters(function))})")
    assert not long, long


def _string_test(test: ast.expr) -> str | None:
    """The name a branch's test compares with a string literal (``"key" in action``,
    ``action == "key"``), or None."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.In, ast.Eq)):
        sides = [test.left, test.comparators[0]]
        literal = [s for s in sides if isinstance(s, ast.Constant) and isinstance(s.value, str)]
        other = [s for s in sides if not (isinstance(s, ast.Constant) and isinstance(s.value, str))]
        if literal and other:
            return ast.unparse(other[0])
    return None


MAX_STRING_BRANCHES = 6


def test_no_long_chain_of_string_tests():
    """An if/elif chain testing one value against string after string is a table of what to do
    for each (a dict of handlers): flag chains of more than six such branches."""
    chains = []
    for module in modules():
        tree = ast.parse(module.read_text(encoding="utf-8"))
        inner = {id(n.orelse[0]) for n in ast.walk(tree) if isinstance(n, ast.If) and len(n.orelse) == 1
                 and isinstance(n.orelse[0], ast.If)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.If) or id(node) in inner:
                continue
            subjects = []
            branch = node
            while True:
                subjects.append(_string_test(branch.test))
                if len(branch.orelse) == 1 and isinstance(branch.orelse[0], ast.If):
                    branch = branch.orelse[0]
                else:
                    break
            named = [s for s in subjects if s is not None]
            if len(named) > MAX_STRING_BRANCHES and len(set(named)) == 1:
                chains.append(f"{module.relative_to(ROOT)}:{node.lineno} ({len(named)} tests of {named[0]})")
    # A run of separate ifs on one name is the same chain written flat.
    for module in modules():
        for name, function in _functions(ast.parse(module.read_text(encoding="utf-8"))):
            tests = [_string_test(n.test) for n in function.body if isinstance(n, ast.If)]
            named = [t for t in tests if t is not None]
            for subject in set(named):
                if named.count(subject) > MAX_STRING_BRANCHES:
                    chains.append(f"{module.relative_to(ROOT)}:{name} ({named.count(subject)} ifs on {subject})")
    assert not chains, chains


def _constants(module: Path):
    """A module's top-level constants worth defining once: UPPER_CASE names bound to a string of
    ten characters or more, or to a literal dict, tuple, list or set of two or more items."""
    for node in ast.parse(module.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id.lstrip("_") for t in targets if isinstance(t, ast.Name)]
            value = node.value
            if not names or not all(n.isupper() for n in names):
                continue
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and len(value.value) >= 10:
                yield names[0], ast.dump(value)
            elif isinstance(value, (ast.Dict, ast.Tuple, ast.List, ast.Set)) and len(
                    value.keys if isinstance(value, ast.Dict) else value.elts) >= 2:
                yield names[0], ast.dump(value)


def test_each_constant_is_defined_in_one_place():
    """The same literal bound to a constant in two modules is one piece of knowledge written
    twice (a stage's names, a file's name): define it once and import it."""
    where: dict[str, list[str]] = {}
    for module in modules():
        for name, value in _constants(module):
            where.setdefault(value, []).append(f"{module.relative_to(ROOT)}:{name}")
    twice = [places for places in where.values() if len({p.split(":")[0] for p in places}) > 1]
    assert not twice, twice




def _record_fields(tree: ast.AST):
    """Each dataclass or NamedTuple of a module, with its field names."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        record = any("dataclass" in ast.unparse(d) for d in node.decorator_list) or any(
            ast.unparse(b).endswith("NamedTuple") for b in node.bases)
        if record:
            fields = tuple(s.target.id for s in node.body if isinstance(s, ast.AnnAssign)
                           and isinstance(s.target, ast.Name) and "ClassVar" not in ast.unparse(s.annotation))
            if len(fields) >= 3:
                yield node.name, fields


def test_no_two_record_types_have_the_same_fields():
    """Two records with the same fields are one type under two names: keep one."""
    seen: dict[frozenset, list[str]] = {}
    for module in modules():
        for name, fields in _record_fields(ast.parse(module.read_text(encoding="utf-8"))):
            seen.setdefault(frozenset(fields), []).append(f"{module.relative_to(ROOT)}:{name}")
    same = [names for names in seen.values() if len(names) > 1]
    assert not same, same
