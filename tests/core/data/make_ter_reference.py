"""Writes ter-sacrebleu-wmt21.json: sacreBLEU's sentence TER of 300 WMT21 into-English pairs
(290 at random and 10 of the longest, where the beam and the shift-candidate limit matter),
which tests/core/test_metrics_ter.py compares the compiled TER with. sacreBLEU's TER is pure
Python and takes seconds a long sentence, so its scores are kept here rather than recomputed on
every test run.

Run: .venv/bin/python tests/core/data/make_ter_reference.py
"""

import json
import random
import sys
from pathlib import Path

import sacrebleu
from sacrebleu.metrics import TER

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from wojdb.bundled import wmt21_toen_pairs  # noqa: E402


def main() -> None:
    pairs = wmt21_toen_pairs()
    sample = random.Random(7).sample(pairs, 290)
    sample += sorted(pairs, key=lambda pair: -len(pair[1].split()))[:400:40]
    ter = TER()
    rows = [
        {"hyp": hyp, "ref": ref, "ter": ter.sentence_score(hyp, [ref]).score / 100}
        for hyp, ref in sample
    ]
    document = {"sacrebleu": sacrebleu.__version__, "signature": str(ter.get_signature())}
    document["pairs"] = rows
    path = HERE / "ter-sacrebleu-wmt21.json"
    path.write_text(json.dumps(document, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {path} ({len(rows)} pairs)")


if __name__ == "__main__":
    main()
