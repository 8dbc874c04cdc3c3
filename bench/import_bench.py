"""Time importing the whole WMT21 into-English slice into a fresh SQLite database.

Usage: .venv/bin/python bench/import_bench.py [--data ../shared/data/wmt21-toen]
Target (issue): texts + DA under 60 s on the SQLite default.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args, env):
    start = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args, "-v", "0"], env=env, check=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/wmt21-toen")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as var:
        env = {**os.environ, "WOJDB_VAR_DIR": var, "DATABASE_URL": f"sqlite:///{var}/bench.db"}
        run("migrate", env=env)
        texts = run("import_wmt", str(args.data / "txt"), env=env)
        docs = run(
            "import_documents", *map(str, sorted(args.data.glob("documents/*.docids"))), env=env
        )
        da = run(
            "import_judgments", *map(str, sorted((args.data / "humaneval").glob("*.csv"))), env=env
        )
        again = run("import_wmt", str(args.data / "txt"), env=env)
    print(f"import_wmt (121,842 triples):        {texts:6.1f} s")
    print(f"import_documents (4 pairs):          {docs:6.1f} s")
    print(f"import_judgments (scores + 115,059 judgments, alignment checks): {da:6.1f} s")
    print(f"total:                               {texts + docs + da:6.1f} s  (target < 60 s)")
    print(f"re-import of the texts (no changes): {again:6.1f} s")


if __name__ == "__main__":
    main()
