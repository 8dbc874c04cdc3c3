"""Starting the web app (settings, apps, admin, URLconf) and every command's --help load none of
the heavy libraries: they load inside the commands and views that use them, so every command
starts quickly (bench/startup_bench.py measures how quickly)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "numpy", "pandas", "pyarrow", "scipy", "statsmodels", "numba", "matplotlib", "PIL",
    "spacy", "nltk", "sacrebleu", "rapidfuzz", "krippendorff", "langcodes", "cv2", "reportlab",
    "segno", "pypdfium2", "zxingcpp",
)  # fmt: skip


def run(code: str) -> str:
    """What `code` prints, run in a fresh process after `heavy()` is defined: the heavy
    libraries loaded so far."""
    script = (
        "import os, sys\n"
        "os.environ['DJANGO_SETTINGS_MODULE'] = 'wojdb.settings'\n"
        f"def heavy(): return [m for m in {HEAVY!r} if m in sys.modules]\n"
        f"{code}\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def loaded_after(code: str) -> list[str]:
    return run(f"{code}\nprint(' '.join(heavy()))").split()


def test_the_web_app_starts_without_the_heavy_libraries():
    code = (
        "import django; django.setup()\n"
        "from django.urls import get_resolver\n"
        "get_resolver().url_patterns"
    )
    assert loaded_after(code) == []
    # Nor the permutation generator and its process pool: the pages need only word units.
    generator = "print('wojdb.core.permutations' in sys.modules)"
    assert run(f"{code}\n{generator}").split() == ["False"]


def test_a_view_that_needs_them_still_loads_them():
    code = "import django; django.setup()\nfrom analysis import releases"
    assert "pandas" in loaded_after(code)


# Each command's --help as `manage.py` runs it, one after another in one process: after each,
# the heavy libraries loaded so far, which the first command to load one shows.
HELP_OF_EVERY_COMMAND = """
import contextlib, io, json
import django
from django.core.management import ManagementUtility, get_commands

django.setup()
ours = sorted(name for name, app in get_commands().items() if app in ("survey", "analysis"))
after = {}
for argv in [["--help"]] + [[name, "--help"] for name in ours]:
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        try:
            ManagementUtility(["manage.py", *argv]).execute()
        except SystemExit as stop:
            assert stop.code in (0, None), (argv, stop.code)
    assert "usage:" in printed.getvalue().lower() or argv == ["--help"], argv
    after[" ".join(argv)] = heavy()
print(json.dumps(after))
"""


def test_every_command_shows_its_help_without_the_heavy_libraries():
    after = json.loads(run(HELP_OF_EVERY_COMMAND))
    assert {"--help", "create_study --help", "analyse --help", "import_scans --help"} <= set(after)
    assert {argv: loaded for argv, loaded in after.items() if loaded} == {}


def test_a_command_that_needs_them_still_loads_them_when_it_runs():
    code = (
        "import django; django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('score', permutation='2,4,1,3', stdout=open(os.devnull, 'w'))"
    )
    assert "numpy" in loaded_after(code)
