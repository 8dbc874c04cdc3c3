"""The pure core imports no Django: every module under wojdb/core (and the researchers' release
loader) is imported in a fresh interpreter, which must not have loaded Django afterwards."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Outside wojdb/core, but promised to import no Django as well.
ALSO_PURE = ("wojdb.release", "wojdb.environment", "wojdb.catalogues", "wojdb.bundled")


def core_modules() -> list[str]:
    files = sorted((ROOT / "wojdb" / "core").rglob("*.py"))
    return [
        ".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__") for f in files
    ]


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


def test_every_core_module_imports_without_django():
    modules = [*core_modules(), *ALSO_PURE]
    assert {
        "wojdb.core.io",
        "wojdb.core.permutations",
        "wojdb.core.release.read",
        "wojdb.core.metrics.registry",
    } <= set(modules)
    if django_loaded_by(modules):
        culprits = [m for m in modules if django_loaded_by([m])]
        raise AssertionError(f"these pure modules import Django: {', '.join(culprits)}")


def test_a_module_importing_django_is_caught():
    assert django_loaded_by(["django.conf"])
