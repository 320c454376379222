"""The layers of the code hold (pyproject.toml's [tool.importlinter], docs/code-layout.md), and the
check would catch a wrong import: the same contracts run on a copy of the code with one bad import
added, at module level or inside a function, and fail naming the contract it breaks."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("world", "memories", "voyage")
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(where: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(where)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=where, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_layers_hold():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
    for contract in ("Layers", "Nothing outside tests/ imports tests/", "The gateway imports no Django model"):
        assert verdict(result.stdout, contract) == "KEPT"


@pytest.fixture(scope="module")
def copy_of_the_code(tmp_path_factory) -> Path:
    """The packages' Python files and pyproject.toml, nothing else (no data, templates or tests)."""
    where = tmp_path_factory.mktemp("layers")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, where / package,
                        ignore=lambda folder, names: [n for n in names if not (n.endswith(".py") or
                                                                               (Path(folder) / n).is_dir())])
    (where / "tests").mkdir()
    (where / "tests" / "__init__.py").write_text("")
    (where / "tests" / "helpers.py").write_text("HELP = 1\n")
    shutil.copy(ROOT / "pyproject.toml", where / "pyproject.toml")
    return where


def test_the_copy_holds_as_it_is(copy_of_the_code):
    assert lint_imports(copy_of_the_code).returncode == 0


WRONG = {
    # a world rule reaching up into the web
    "world/rules/wrong.py": ("from voyage.web import runs\n", "Layers"),
    # the engine reaching up into the runs, lazily: a late import is an import
    "voyage/engine/wrong.py": ("def start():\n    from voyage.runs import control\n    return control\n", "Layers"),
    # the gateway reading a Django model
    "voyage/gateway/wrong.py": ("def profile():\n    from voyage.models import ModelProfile\n    return ModelProfile\n",
                                "The gateway imports no Django model"),
    # production code importing a test helper
    "voyage/runs/wrong.py": ("from tests.helpers import HELP\n", "Nothing outside tests/ imports tests/"),
}


@pytest.mark.parametrize("path", sorted(WRONG))
def test_a_wrong_import_breaks_a_contract(copy_of_the_code, path):
    text, contract = WRONG[path]
    wrong = copy_of_the_code / path
    wrong.write_text(text)
    try:
        result = lint_imports(copy_of_the_code)
    finally:
        wrong.unlink()
    assert result.returncode != 0, result.stdout
    assert verdict(result.stdout, contract) == "BROKEN", result.stdout


def verdict(output: str, contract: str) -> str:
    """KEPT or BROKEN, as the report says of the contract whose name starts with `contract` (a long
    name wraps over lines)."""
    flat = " ".join(output.split())
    after = flat[flat.index(contract):]
    return min(("KEPT", "BROKEN"), key=lambda word: after.find(f" {word}") % (len(after) + 1))


def test_every_module_of_the_instruments_has_a_layer():
    """voyage/instruments/ straddles two layers (its rows below memories, its state above), so the
    contract names its modules one by one: a new module must be given its layer there too."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    [layers] = [c["layers"] for c in config if c["id"] == "layers"]
    named = {m.strip() for layer in layers for m in layer.replace("|", ":").split(":")}
    modules = {f"voyage.instruments.{p.stem}" for p in (ROOT / "voyage" / "instruments").glob("*.py")
               if p.stem != "__init__"}
    assert modules - named == set()
