"""The pure core imports no Django: every module docs/architecture.md lists in the pure core
(and the researchers' release loader) is imported in a fresh interpreter, which must not have
loaded Django afterwards."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Outside the pure core's row, but promised to import no Django as well.
ALSO_PURE = ("wojdb.release", "wojdb.environment", "wojdb.catalogues")


def pure_modules() -> list[str]:
    row = next(
        line
        for line in (ROOT / "docs" / "architecture.md").read_text().splitlines()
        if line.startswith("| pure core |")
    )
    modules = []
    for path in re.findall(r"`((?:survey|analysis|wojdb)/[\w/]*(?:\.py)?)`", row):
        target = ROOT / path
        files = sorted(target.rglob("*.py")) if target.is_dir() else [target]
        assert files and all(f.is_file() for f in files), f"{path} is not in the tree"
        modules += [
            ".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            for f in files
        ]
    return [*modules, *ALSO_PURE]


def django_loaded_by(modules: list[str]) -> bool:
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "sys.exit(1 if any(m == 'django' or m.startswith('django.') for m in sys.modules) else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode in (0, 1), result.stderr
    return result.returncode == 1


def test_the_documented_pure_core_imports_no_django():
    modules = pure_modules()
    assert {"survey.permutations", "analysis.release.read", "analysis.metrics.registry"} <= set(
        modules
    )
    if django_loaded_by(modules):
        culprits = [m for m in modules if django_loaded_by([m])]
        raise AssertionError(f"these pure modules import Django: {', '.join(culprits)}")
