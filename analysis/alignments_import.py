"""Word alignments from external aligners (fast_align, GIZA++, cdec): the pairs to align out, the
`i-j` files back in.

The pairs file is tab-separated with a header: `item_id`, and as `write_pairs` writes it,
`hypothesis` and `reference`, the tokens of the stored parses joined by spaces, so that an
aligner's token k is the parser's token k. It names the item of each line of the alignment
file, which holds Pharaoh `i-j` links, 0-based, hypothesis index first: the hypothesis is the
aligner's source side. Only hypothesis items take imported alignments; permuted references are
aligned by their known word mapping.

Both files are read and checked against the stored parses before anything is written; the
alignments are then stored in one transaction, replacing those of the same aligner for the same
hypotheses. Lines whose item id is not in the database are reported with counts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from analysis.models import Alignment, Metric
from analysis.scoring import item_parses
from survey.models import Item
from survey.sources.parses import Bars, no_bars
from wojdb.core.io import MAX_ID, ImportReport, InputError, Progress, parse_number, read_lines
from wojdb.core.language.nlp import Parse
from wojdb.core.metrics.alignment import (
    PERMUTATION_MAPPING,
    AlignmentFormatError,
    aligner_name,
    parse_links,
)

PAIRS_COLUMNS = ("item_id", "hypothesis", "reference")
BUILT_IN_PREFIX = aligner_name(())  # "woj-monolingual/": the built-in aligner's names
BATCH = 5000


@dataclass(frozen=True)
class PairRow:
    """One row of a pairs file: the item of one alignment line, and the tokens if given."""

    item_id: int
    line: int
    hypothesis: str | None = None
    reference: str | None = None


def check_aligner(name: str) -> str:
    """The aligner name to store, or ValueError saying why it cannot be one."""
    limit = Alignment._meta.get_field("aligner").max_length
    if not name.strip():
        raise ValueError("the aligner name is empty")
    if len(name) > limit:
        raise ValueError(f"the aligner name is longer than {limit} characters")
    if name.startswith(BUILT_IN_PREFIX) or name == PERMUTATION_MAPPING:
        raise ValueError(f"{name!r} is the name of a built-in alignment; choose another")
    return name


# --- out: the pairs to align -------------------------------------------------------------------


def pairs_table(rows: Iterable[tuple[int, Parse, Parse]]) -> str:
    """The pairs file of (item id, hypothesis parse, reference parse) rows."""
    lines = ["\t".join(PAIRS_COLUMNS)]
    for item_id, hyp, ref in rows:
        for side, parse in (("hypothesis", hyp), ("reference", ref)):
            if any(not token or token != "".join(token.split()) for token in parse.tokens):
                raise ValueError(
                    f"item {item_id}: a token of the {side} is empty or holds white space, so "
                    "an aligner reading space-separated tokens would count them differently"
                )
        lines.append(f"{item_id}\t{' '.join(hyp.tokens)}\t{' '.join(ref.tokens)}")
    return "\n".join(lines) + "\n"


# --- in: the pairs file and the i-j file -------------------------------------------------------


def write_pairs(path: Path, bars: Bars = no_bars) -> int:
    """Write the tokenised pairs of every hypothesis item to `path` for an external aligner
    (parsing and keeping the parses not stored yet); returns how many."""
    items = list(
        Item.objects.filter(permutation=None).select_related("triple__segment").order_by("pk")
    )
    if not items:
        raise ValueError("there are no hypothesis items yet; nothing to align")
    references, hypotheses = item_parses(items, bars)
    rows = (
        (item.pk, hypotheses[item.triple_id], references[item.triple.segment_id]) for item in items
    )
    path.write_text(pairs_table(rows), encoding="utf-8")
    return len(items)


def read_pairs(path: Path) -> list[PairRow]:
    lines = read_lines(path)
    if not lines:
        raise InputError(path, "is empty")
    header = lines[0].split("\t")
    if "item_id" not in header:
        raise InputError(path, "missing column item_id (a tab-separated header is needed)", 1)
    column = {name: header.index(name) for name in PAIRS_COLUMNS if name in header}
    rows, first_line = [], {}
    for no, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(header):
            raise InputError(
                path, f"expected {len(header)} tab-separated columns, found {len(cells)}", no
            )
        item_id = parse_number(
            cells[column["item_id"]].strip(), path, no, "item_id", int, 1, MAX_ID
        )
        if item_id in first_line:
            raise InputError(
                path,
                f"item {item_id} is listed twice (first on line {first_line[item_id]})",
                no,
                "item_id",
            )
        first_line[item_id] = no
        texts = {name: cells[i] for name, i in column.items() if name != "item_id"}
        rows.append(PairRow(item_id, no, **texts))
    return rows


@dataclass(frozen=True)
class Known:
    """An item of the database: its triple and the token counts of its stored parses."""

    triple_id: int
    hyp_len: int
    ref_len: int


def _known_items(pairs_path: Path, rows: list[PairRow]) -> dict[int, Known]:
    """The items of the rows that are in the database, checked to be hypotheses with stored
    parses whose tokens are those the rows give."""
    found = {
        pk: rest
        for pk, *rest in Item.objects.filter(pk__in=[row.item_id for row in rows]).values_list(
            "pk", "permutation_id", "triple_id", "triple__parse", "triple__segment__parse"
        )
    }
    known = {}
    for row in rows:
        if row.item_id not in found:
            continue
        permutation, triple_id, *parses = found[row.item_id]
        where = {"line": row.line, "field": "item_id"}
        if permutation is not None:
            raise InputError(
                pairs_path,
                f"item {row.item_id} is a permuted reference; those are aligned by their word "
                "mapping, only hypotheses take imported alignments",
                **where,
            )
        for side, parse, given in zip(
            ("hypothesis", "reference"), parses, (row.hypothesis, row.reference), strict=True
        ):
            if parse is None:
                raise InputError(
                    pairs_path,
                    f"the {side} of item {row.item_id} has no stored parse, so its tokens are "
                    "unknown; write the pairs with --write-pairs, which parses it",
                    **where,
                )
            if given is not None and given.split() != parse["tokens"]:
                raise InputError(
                    pairs_path,
                    f"the tokens differ from the stored parse of item {row.item_id} "
                    f"({' '.join(parse['tokens'])!r}); write the pairs again and realign",
                    row.line,
                    side,
                )
        known[row.item_id] = Known(triple_id, *(len(parse["tokens"]) for parse in parses))
    return known


def _read_links(
    path: Path,
    lines: list[str],
    rows: list[PairRow],
    known: dict[int, Known],
    aligner: str,
    progress: Progress | None,
) -> list[Alignment]:
    """The alignments of the known items, every line checked against its item's token counts
    (the lines of unknown items only for their form)."""
    alignments = []
    for no, (text, row) in enumerate(zip(lines, rows, strict=True), start=1):
        item = known.get(row.item_id)
        lengths = (item.hyp_len, item.ref_len) if item else (math.inf, math.inf)
        try:
            links = parse_links(text, *lengths, aligner=aligner, line=no).links
        except AlignmentFormatError as error:
            problem = str(error).removeprefix(f"line {no}: ")
            where = f"item {row.item_id}" if item else "an unknown item"
            raise InputError(path, f"{problem} ({where}, pairs line {row.line})", no) from None
        if item:
            pairs = [list(link) for link in links]
            alignments.append(Alignment(triple_id=item.triple_id, aligner=aligner, pairs=pairs))
        if progress:
            progress(1)
    return alignments


def import_alignments(
    path: Path, pairs_path: Path, aligner: str, progress: Progress | None = None
) -> ImportReport:
    """Store the `i-j` links of `path` under `aligner`, line k for the item of the pairs file's
    k-th row; `aligner` is a name `check_aligner` accepts. Raises InputError (file, line,
    field) before writing anything."""
    rows = read_pairs(pairs_path)
    lines = read_lines(path)
    if len(lines) != len(rows):
        problem = "missing" if len(lines) < len(rows) else "more lines than pairs"
        raise InputError(
            path,
            f"{problem}: {pairs_path.name} lists {len(rows)} pair(s), the alignment file has "
            f"{len(lines)} line(s)",
            min(len(lines), len(rows)) + 1,
        )
    known = _known_items(pairs_path, rows)
    alignments = _read_links(path, lines, rows, known, aligner, progress)
    report = ImportReport()
    with transaction.atomic():
        triples = [alignment.triple_id for alignment in alignments]
        replaced = Alignment.objects.filter(aligner=aligner, triple_id__in=triples).count()
        Alignment.objects.bulk_create(
            alignments,
            update_conflicts=True,
            unique_fields=["triple", "aligner"],
            update_fields=["pairs"],
            batch_size=BATCH,
        )
    report.created["alignments"] = len(alignments)
    unknown = len(rows) - len(alignments)
    if unknown:
        report.unmatched[f"{pairs_path.name}: item ids not in the database"] = unknown
    if replaced:
        report.notes.append(f"{replaced:,} stored alignment(s) of {aligner!r} were replaced.")
        scored = Metric.objects.filter(config__contains=f"aligner={aligner};", scores__isnull=False)
        if scored.exists():
            report.notes.append(
                f"Scores already computed with aligner={aligner} are kept by compute_metrics; "
                "delete those metrics to score the new alignments."
            )
    return report
