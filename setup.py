"""What pyproject.toml cannot say: the packages found in the tree, plus the demo's data.

The message catalogues' .mo files are compiled from their .po files into the build
(wojdb/catalogues.py), as they are not kept in the tree.

The demos' WMT21 slices stay in fixtures/ for a clone (bin/demo, the tests) and are installed as
`wojdb/fixtures`, where the installed `demo` command reads them (wojdb.settings.FIXTURES_DIR).
Only the data files pyproject.toml's package-data names go in: neither the scripts that cut the
slices nor the test archives beside them.
"""

import sys
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wojdb.catalogues import compile_catalogues  # noqa: E402

FIXTURES = "wojdb.fixtures"


class BuildPy(build_py):
    def find_package_modules(self, package, package_dir):
        return [] if package == FIXTURES else super().find_package_modules(package, package_dir)

    def run(self):
        super().run()
        if not self.dry_run:
            compile_catalogues(Path(self.build_lib))


setup(
    packages=[*find_packages(include=["wojdb*", "survey*", "analysis*"]), FIXTURES],
    package_dir={FIXTURES: "fixtures"},
    cmdclass={"build_py": BuildPy},
)
