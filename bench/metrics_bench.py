"""Time the built-in metrics on 10,000 WMT21 hypothesis/reference pairs, parses cached.

Targets (issue): under 60 s for every built-in metric over the 10,000 pairs on 2 cores, and
under 50 ms for the PEF score of a 60-word permutation.

The pairs are drawn with a fixed seed from every system output of the WMT21 into-English slice
bundled in fixtures/wmt21-toen.tar.xz, each with its reference A. Sentences are parsed once with
spaCy (wojdb.core.language.nlp) and the parses kept in bench/out/, so only the metrics are timed;
the parse
time is printed apart. Then:
1. every built-in metric over all pairs with `compute_many`, in parallel (--jobs, default 2);
2. the CPU seconds each metric takes in one process over the first --breakdown pairs (a
   computation shared by several metrics counts for the first that needs it);
3. the PEF and PET scores of 60-word permutations.

Run: .venv/bin/python bench/metrics_bench.py [--pairs 10000] [--jobs 2] [--breakdown 1000]
"""

import argparse
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from wojdb.bundled import wmt21_toen_pairs  # noqa: E402
from wojdb.core.language.nlp import Parse, parse_texts  # noqa: E402
from wojdb.core.metrics import pets  # noqa: E402
from wojdb.core.metrics.compute import PairInput, compute_many  # noqa: E402
from wojdb.core.metrics.registry import METRICS, PairContext  # noqa: E402

OUT = ROOT / "bench" / "out"


def wmt_pairs(count: int, seed: int) -> list[tuple[str, str]]:
    """(hypothesis, reference A) text pairs sampled from every system output."""
    return random.Random(seed).sample(wmt21_toen_pairs(), count)


def cached_parses(texts: list[str], cache: Path) -> tuple[dict[str, Parse], float | None]:
    """Parses of every distinct text, from the cache file where present; the parse seconds."""
    parsed = {}
    if cache.exists():
        stored = json.loads(cache.read_text(encoding="utf-8"))
        parsed = {text: Parse.from_dict(data) for text, data in stored.items()}
    missing = sorted(set(texts) - set(parsed))
    seconds = None
    if missing:
        start = time.perf_counter()
        parsed.update(zip(missing, parse_texts(missing), strict=True))
        seconds = time.perf_counter() - start
        cache.parent.mkdir(parents=True, exist_ok=True)
        stored = {text: parse.to_dict() for text, parse in parsed.items()}
        cache.write_text(json.dumps(stored), encoding="utf-8")
    return parsed, seconds


def breakdown(pairs: list[PairInput]) -> dict[str, float]:
    """CPU seconds per metric in this process; shared work counts for its first user."""
    seconds: dict[str, float] = defaultdict(float)
    for pair in pairs:
        start = time.process_time()
        context = PairContext(pair.hyp, pair.ref, pair.alignment)
        _ = context.permutation
        seconds["(alignment and permutation)"] += time.process_time() - start
        for metric in METRICS:
            start = time.process_time()
            metric.function(context.permutation if metric.kind == "permutation" else context)
            seconds[f"{metric.name}:{metric.variant}"] += time.process_time() - start
    return seconds


def permutation_timings(rng: random.Random) -> dict[str, list[float]]:
    """Milliseconds per call for fresh 60-word permutations: monotone, inverted, a few local
    swaps, shuffled blocks and a random one. The first call of a variant also computes the
    inverted permutation's score that the rescaled variants divide by."""
    perms = [tuple(range(1, 61)), tuple(range(60, 0, -1))]
    for swaps in (1, 3, 8):
        perm = list(range(1, 61))
        for _ in range(swaps):
            i = rng.randrange(59)
            perm[i], perm[i + 1] = perm[i + 1], perm[i]
        perms.append(tuple(perm))
    blocks = [list(range(start, start + 10)) for start in range(1, 61, 10)]
    rng.shuffle(blocks)
    perms.append(tuple(v for block in blocks for v in block))
    perms.append(tuple(rng.sample(range(1, 61), 60)))
    timings = {}
    functions = [pets.pef_paper, pets.pef_beer, pets.pef_beer_old, pets.pet_paper, pets.pet_beer]
    functions += [pets.pet_beer_flat, pets.pet_beer_viterbi]
    for function in functions:
        timings[function.__name__] = []
        for perm in perms:
            start = time.perf_counter()
            function(perm)
            timings[function.__name__].append((time.perf_counter() - start) * 1000)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--breakdown", type=int, default=1000, help="pairs timed metric by metric (0: none)"
    )
    args = parser.parse_args()

    texts = wmt_pairs(args.pairs, args.seed)
    print(f"{len(texts):,} WMT21 into-English pairs (seed {args.seed})")
    sentences = [text for pair in texts for text in pair]
    parsed, parse_seconds = cached_parses(sentences, OUT / "wmt21-parses.json")
    distinct = len(set(sentences))
    if parse_seconds is None:
        print(f"parses: {distinct:,} distinct sentences, all from the cache")
    else:
        print(
            f"parses: {distinct:,} distinct sentences; spaCy parse of the uncached ones: "
            f"{parse_seconds:.1f} s"
        )
    pairs = [PairInput(i, parsed[h], parsed[r]) for i, (h, r) in enumerate(texts)]
    tokens = statistics.mean(len(pair.ref) for pair in pairs)
    print(f"mean reference length {tokens:.1f} tokens; parser {pairs[0].ref.parser}")

    names = [f"{m.name}:{m.variant}" for m in METRICS]
    start = time.perf_counter()
    rows = compute_many(pairs, names, jobs=args.jobs)
    seconds = time.perf_counter() - start
    print(
        f"all {len(METRICS)} built-in metrics, {args.jobs} jobs: {seconds:.1f} s "
        f"({len(rows):,} scores; {1000 * seconds / len(pairs):.2f} ms per pair)"
    )

    if args.breakdown:
        sample = pairs[: args.breakdown]
        per_metric = breakdown(sample)
        total = sum(per_metric.values())
        print(
            f"per metric, one process: CPU seconds over the first {len(sample):,} pairs "
            f"(total {total:.1f})"
        )
        for name, value in sorted(per_metric.items(), key=lambda item: -item[1]):
            print(f"  {name:<28} {value:8.2f}")

    print("60-word permutations, ms per call (max / median over 7 permutations):")
    for name, values in permutation_timings(random.Random(args.seed)).items():
        print(f"  {name:<18} {max(values):7.2f} / {statistics.median(values):6.2f}")


if __name__ == "__main__":
    main()
