"""How long the automatic permutations take, next to the parsing they need.

For 2,000 references of the WMT21 slice (and one system's hypothesis for each, which 'choice'
draws from) it prints the seconds to parse the references alone, to parse the hypotheses, and
to generate all four types at every possible degree, then permutations per second and the
time the thesis's 212,950 permutations (Table 6.2) would take, extrapolated.

Targets: generation adds at most 30% to the parse time; the thesis's scale takes under 10
minutes on a 2-core machine. Other work on the machine slows every phase, so the phases run in
turn, --repeat rounds of them, and each phase's fastest run counts: a slow spell then costs
every phase alike rather than the one running at the time. Each round's own share is printed
too, and the load average.

    .venv/bin/python bench/permutation_bench.py [--references 2000] [--jobs N] [--seed S]

Generation runs on one process and on --jobs processes (default: all cores).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from wojdb.bundled import wmt21_toen  # noqa: E402
from wojdb.core.language.nlp import DEFAULT_PIPELINE, load_pipeline, parse_texts  # noqa: E402
from wojdb.core.permutations import MAX_DEGREE, SentencePair, Truecaser, generate_many  # noqa: E402
from wojdb.core.vocabulary import MAIN_TYPES  # noqa: E402

THESIS_PERMUTATIONS = 212_950  # Table 6.2
TARGET_SHARE = 0.30
TARGET_MINUTES = 10


def wmt_pairs(count: int, seed: int) -> tuple[list[str], list[str], list[str]]:
    """`count` references drawn at random from all into-English test sets, each with the
    hypothesis of one of its systems; also every reference, for the truecasing counts."""
    candidates, corpus, wmt = [], [], wmt21_toen() / "txt"
    for reference_file in sorted((wmt / "references").glob("*.ref.A.en")):
        pair = reference_file.name.split(".")[1]
        references = reference_file.read_text().splitlines()
        corpus += references
        systems = sorted((wmt / "system-outputs").glob(f"newstest2021.{pair}.hyp.*.en"))
        outputs = [path.read_text().splitlines() for path in systems]
        for line, reference in enumerate(references):
            hypothesis = outputs[line % len(outputs)][line]
            if reference.strip() and hypothesis.strip():
                candidates.append((reference, hypothesis))
    chosen = sorted(random.Random(seed).sample(range(len(candidates)), count))
    return [candidates[i][0] for i in chosen], [candidates[i][1] for i in chosen], corpus


def cpu_seconds() -> float:
    """CPU time of this process and of its finished worker processes."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed(function, *args, **kwargs) -> tuple[object, tuple[float, float]]:
    """The result of function(*args, **kwargs), and its wall-clock and CPU seconds."""
    start, start_cpu = time.perf_counter(), cpu_seconds()
    result = function(*args, **kwargs)
    return result, (time.perf_counter() - start, cpu_seconds() - start_cpu)


def processes(count: int) -> str:
    return f"{count} process{'es' if count > 1 else ''}"


def seconds(wall: float, cpu: float) -> str:
    return f"{wall:6.1f} s  (CPU {cpu:5.1f} s)"


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--references", type=int, default=2000)
    options.add_argument(
        "--jobs", type=int, default=os.cpu_count(), help="processes for the second generation run"
    )
    options.add_argument("--seed", type=int, default=1)
    options.add_argument(
        "--repeat", type=int, default=3, help="rounds of all phases; each one's fastest run counts"
    )
    options.add_argument("--pipeline", default=DEFAULT_PIPELINE)
    args = options.parse_args()
    if args.repeat < 1:
        options.error("--repeat must be at least 1")

    references, hypotheses, corpus = wmt_pairs(args.references, args.seed)
    _, (load_seconds, _) = timed(load_pipeline, args.pipeline)
    print(f"{len(references):,} WMT21 references, seed {args.seed}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    print(f"pipeline {args.pipeline} loaded in {load_seconds:.1f} s (not counted)")
    print(f"{args.repeat} rounds of every phase; each phase's fastest run counts")

    truecaser = Truecaser.from_corpus(reference.split() for reference in corpus)
    process_counts = sorted({1, args.jobs})
    timings: dict[object, list[tuple[float, float]]] = {}
    shares = []  # each round's generation on the most processes over its reference parse
    for _ in range(args.repeat):
        reference_parses, reference_run = timed(list, parse_texts(references, args.pipeline))
        hypothesis_parses, hypothesis_run = timed(list, parse_texts(hypotheses, args.pipeline))
        timings.setdefault("references", []).append(reference_run)
        timings.setdefault("hypotheses", []).append(hypothesis_run)
        pairs = [
            SentencePair(*texts)
            for texts in zip(
                references, reference_parses, hypotheses, hypothesis_parses, strict=True
            )
        ]
        for jobs in process_counts:
            generated, run = timed(
                list, generate_many(pairs, args.seed, truecaser=truecaser, jobs=jobs)
            )
            timings.setdefault(jobs, []).append(run)
        shares.append(run[0] / reference_run[0])

    parse_wall, parse_cpu = min(timings["references"])
    hypothesis_wall, hypothesis_cpu = min(timings["hypotheses"])
    tokens = sum(map(len, reference_parses))
    print(f"parse the references alone:    {seconds(parse_wall, parse_cpu)}  {tokens:,} tokens")
    print(f"parse their hypotheses:        {seconds(hypothesis_wall, hypothesis_cpu)}")

    counts = Counter(p.perm_type for permutations in generated for p in permutations)
    total = sum(counts.values())
    print(
        f"generate all four types at degrees 1-{MAX_DEGREE}: {total:,} permutations "
        f"({', '.join(f'{counts[t]:,} {t}' for t in MAIN_TYPES)})"
    )
    both_parses = (parse_wall + hypothesis_wall, parse_cpu + hypothesis_cpu)
    for jobs in process_counts:
        wall, cpu = min(timings[jobs])
        print(
            f"  on {processes(jobs)}: {seconds(wall, cpu)}, "
            f"{total / wall:,.0f} permutations/s; "
            f"{wall / parse_wall:.0%} of the references' parse ({cpu / parse_cpu:.0%} in CPU), "
            f"{wall / both_parses[0]:.0%} of both parses ({cpu / both_parses[1]:.0%} in CPU)"
        )
    generate_wall = min(timings[process_counts[-1]])[0]
    share = generate_wall / parse_wall
    verdict = "met" if share <= TARGET_SHARE else "missed"
    # As generate_permutations runs them: spaCy parses on one process, generation on --jobs.
    print(
        f"target, generation on {processes(process_counts[-1])} at most {TARGET_SHARE:.0%} of "
        f"the references' parse: {verdict} "
        f"({share:.0%} at best; rounds: {', '.join(f'{s:.0%}' for s in shares)})"
    )

    per_reference = (parse_wall + hypothesis_wall + generate_wall) / len(pairs)
    references_needed = THESIS_PERMUTATIONS / (total / len(pairs))
    minutes = references_needed * per_reference / 60
    verdict = "met" if minutes < TARGET_MINUTES else "missed"
    print(
        f"thesis scale, {THESIS_PERMUTATIONS:,} permutations from {references_needed:,.0f} "
        f"references at this yield: {THESIS_PERMUTATIONS / total * generate_wall / 60:.1f} min "
        f"generating, {minutes:.1f} min with parsing (target under {TARGET_MINUTES} min: {verdict})"
    )


if __name__ == "__main__":
    main()
