"""Time importing the whole WMT21 into-English slice into a fresh SQLite database.

Usage: .venv/bin/python bench/import_bench.py [--data DIR]

By default the WMT21 slice bundled in fixtures/wmt21-toen.tar.xz; --data takes a folder of the
same layout (txt/, humaneval/ and documents/).
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
sys.path.insert(0, str(ROOT))

from wojdb.bundled import wmt21_toen  # noqa: E402


def run(*args, env):
    start = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args, "-v", "0"], env=env, check=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="default: the bundled WMT21 slice")
    args = parser.parse_args()
    args.data = args.data or wmt21_toen()
    with tempfile.TemporaryDirectory() as var:
        env = {**os.environ, "WOJDB_HOME": var, "DATABASE_URL": f"sqlite:///{var}/bench.db"}
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
