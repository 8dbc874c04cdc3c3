"""Starting the web app (settings, apps, admin, URLconf) loads none of the heavy libraries:
they load inside the commands and views that use them, so every command starts quickly."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("scipy", "matplotlib", "spacy", "numba", "statsmodels", "cv2", "reportlab", "pandas")


def loaded_after(code: str) -> list[str]:
    script = (
        "import os, sys\n"
        "os.environ['DJANGO_SETTINGS_MODULE'] = 'wojdb.settings'\n"
        f"{code}\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_the_web_app_starts_without_the_heavy_libraries():
    code = (
        "import django; django.setup()\n"
        "from django.urls import get_resolver\n"
        "get_resolver().url_patterns"
    )
    assert loaded_after(code) == []


def test_a_view_that_needs_them_still_loads_them():
    code = "import django; django.setup()\nfrom analysis import releases"
    assert "pandas" in loaded_after(code)
