"""A study built from its file in one transaction (`create_study FILE`): the sources imported
where missing, the study's settings and consent texts applied, its pool drawn, the permutations
generated, the practice pair chosen and the questionnaires composed. A build that fails
half-way leaves the database as it was, with one message naming the file, line and key.

Building the same file again changes only what the file changes: an unchanged file keeps the
pool, permutations and questionnaires (and the simulated participants on them). A change to the
pool or the design replaces the questionnaires, until real people have taken part
(survey.design.shown.real_participation); then it is refused, as is a change to anything else
they read before or while answering (survey.design.shown.FIXED).

The build's digest is a SHA-256 of everything participants are shown (survey.design.shown.SHOWN)
— the texts, questions and scale ends, the language, the consent statements, the practice pair,
the shared items, the pool and every questionnaire's items, positions and texts — by content,
never by database ids: the same file and the same sources give the same digest in any empty
database, and a file that changes anything participants read gives another.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet

from survey import record
from survey.design import shown
from survey.design.generation import GenerationError, generate_permutations
from survey.design.plan import record_plan
from survey.design.questionnaires import (
    HYPOTHESIS_FIELDS,
    ITEM_RELATIONS,
    QuestionnaireError,
    build_questionnaires,
    current_questionnaires,
    discard_questionnaires,
    item_key,
)
from survey.design.sentence_pool import (
    PoolError,
    pool_triples,
    sample_pool,
    selected_corpora,
)
from survey.models import ConsentText, Item, Permutation, Study, StudyPlan, Triple
from survey.sources.documents import import_documents
from survey.sources.human_judgments import import_judgments
from survey.sources.parses import Bars, import_parses, no_bars
from survey.sources.testsets import prepare_wmt, write_wmt
from wojdb.core import texts
from wojdb.core.design.composition import CompositionError, ConfigurationError
from wojdb.core.io import ImportReport, InputError
from wojdb.core.language.rules import NoPipelineError
from wojdb.core.study_file import (
    HYPOTHESIS_KEY,
    PERMUTATIONS,
    POOL,
    PRACTICE_RULE,
    QUESTIONNAIRES,
    Declared,
    full_permutations,
)


@dataclass
class Build:
    """What a build did: the study, whether it was new, the imports' reports and one line per
    step, and the digest of what participants are shown."""

    study: Study
    created: bool
    imports: list[tuple[str, ImportReport]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    digest: str = ""


def _quiet(_: str) -> None:
    pass


# What each step raises on input it cannot take, reported under the key of the file behind it.
STEP_ERRORS = (
    InputError,
    PoolError,
    GenerationError,
    NoPipelineError,
    CompositionError,
    ConfigurationError,
    QuestionnaireError,
    OSError,
)


@contextmanager
def _under(declared: Declared, key: str, explain: Callable[[str], str] = str) -> Iterator[None]:
    try:
        yield
    except STEP_ERRORS as e:
        if isinstance(e, PoolError) and e.key:
            key = f"{key}.{e.key}"
        if isinstance(e, OSError):  # a source that went away or turned unreadable since
            e = InputError(e.filename or key, e.strerror or str(e))
        problem = explain(str(e)).rstrip(".")
        raise declared.error(key, f"{problem}. Nothing was written.") from None


def build_study(
    declared: Declared, *, jobs: int = 1, bars: Bars = no_bars, step: Callable = _quiet
) -> Build:
    """Build (or bring up to date) the study a file declares; raises StudyFileError."""
    if not declared.fields.get("slug"):
        raise declared.error("slug", "the study file names no slug")
    with transaction.atomic():
        within, imports = _import_sources(declared, step)
        study, created = _study(declared)
        build = Build(study, created, imports)
        plan = None if created else StudyPlan.objects.filter(study=study).first()
        changed = [] if created else _changes(study, plan, declared)
        before = None if created else study_digest(study)
        locked = None if created else shown.real_participation(study)
        if locked and (fixed := _fixed_changes(study, plan, declared)):
            _refuse(declared, study, locked, fixed)
        _apply_fields(declared, study, created)
        if declared.pool is None:  # the practice pair and shared items among what is imported
            item = study.sample_item
            if declared.practice_item is not None:
                item = _practice(declared, declared.practice_item, study, Triple.objects.all())
            _set_items(declared, study, item, locked, build)
        else:
            changed += _build_pool(
                declared, study, changed, locked, within, jobs, bars, step, build
            )
        if declared.pool is not None and changed and study.questionnaires.exists():
            questionnaires, cleared = discard_questionnaires(study)
            pilot = f" and {cleared.pilot} pilot" if cleared.pilot else ""
            build.lines.append(
                f"removed {questionnaires} questionnaire(s) and {cleared.simulated} simulated"
                f"{pilot} participant(s) built on the earlier design ({', '.join(changed)} "
                "changed)"
            )
        if declared.questionnaires is not None and not study.questionnaires.exists():
            _compose(declared, study, step, build)
        elif study.questionnaires.exists():
            build.lines.append(f"questionnaires: {len(current_questionnaires(study))} kept")
        build.digest = study_digest(study)
        if created:
            record.note(study, "study created", digest=build.digest)
        elif build.digest != before:
            record.note(
                study, "study file applied", digest=build.digest, before=before, changed=changed
            )
    return build


# --- sources -----------------------------------------------------------------------------------


def _import_sources(declared: Declared, step) -> tuple[set, list]:
    """Import every source (importers add only what is missing); the test sets they hold."""
    sources, within, reports = declared.sources, set(), []
    if sources:
        step("Importing the study's sources")
    for n, entry in enumerate(sources.get("testsets", []), start=1):
        key = f"sources.testsets[{n}]"
        with _under(declared, key):
            plan = prepare_wmt(
                Path(entry["path"]),
                year=entry.get("year"),
                lps=entry.get("language_pairs"),
                refs=entry.get("references"),
                systems=entry.get("systems"),
                testset=entry.get("testset"),
            )
            layout = plan.found.layout
            if entry.get("layout", layout) != layout:
                raise InputError(entry["path"], f"is in the {layout} layout, not {entry['layout']}")
            reports.append((entry["path"], write_wmt(plan)))
        within |= {(ts.testset, ts.source_lang, ts.target_lang) for ts in plan.found.test_sets}
    for n, entry in enumerate(sources.get("parses", []), start=1):
        with _under(declared, f"sources.parses[{n}]"):
            report = import_parses(
                Path(entry["path"]),
                testset=entry["testset"],
                lp=entry["language_pair"],
                system=entry.get("system"),
                parser=entry.get("parser", "conllu"),
            )
        reports.append((entry["path"], report))
    for n, entry in enumerate(sources.get("documents", []), start=1):
        with _under(declared, f"sources.documents[{n}]"):
            report = import_documents([Path(entry["path"])], testset=entry.get("testset"))
        reports.append((entry["path"], report))
    for n, entry in enumerate(sources.get("judgments", []), start=1):
        with _under(declared, f"sources.judgments[{n}]"):
            report = import_judgments(
                [Path(entry["path"])],
                testset=entry.get("testset"),
                lp=entry.get("language_pair"),
                sid_mapping=entry.get("sid_mapping", "documents"),
                accept_unverified_alignment=entry.get("accept_unverified_alignment", False),
            )
        reports.append((entry["path"], report))
    return within, reports


# --- the study's settings ----------------------------------------------------------------------


def _study(declared: Declared) -> tuple[Study, bool]:
    study = Study.objects.select_for_update().filter(slug=declared.fields["slug"]).first()
    return (study, False) if study else (Study(), True)


def _table_changes(plan: StudyPlan | None, declared: Declared) -> list[str]:
    return [
        name
        for name in (POOL, PERMUTATIONS, QUESTIONNAIRES)
        if getattr(declared, name) is not None
        and getattr(declared, name) != getattr(plan, name, None)
    ]


def _changes(study: Study, plan: StudyPlan | None, declared: Declared) -> list[str]:
    """The keys whose change would alter the study's questionnaires: the layout, the questions
    (simulated answers were given to the earlier ones) and the tables."""
    fields = [
        name
        for name in shown.LAYOUT + shown.QUESTIONS
        if name in declared.fields and declared.fields[name] != getattr(study, name)
    ]
    return fields + _table_changes(plan, declared)


def _fixed_changes(study: Study, plan: StudyPlan | None, declared: Declared) -> list[str]:
    """The keys that would change what participants read before or while answering (the
    practice pair and shared items are compared once found: `_set_items`)."""
    return shown.fixed_changes(study, declared.fields) + _table_changes(plan, declared)


def _refuse(declared: Declared, study: Study, reason: str, changed: list[str]):
    problem = shown.refusal(study, reason, changed, "the file")
    raise declared.error(changed[0], f"{problem}. Nothing was written.")


def _apply_fields(declared: Declared, study: Study, created: bool) -> None:
    for name, value in declared.fields.items():
        setattr(study, name, value)
    if created:
        study.take_language_defaults(given=declared.fields)
    try:
        study.full_clean()
    except ValidationError as e:
        name, messages = next(iter(e.message_dict.items()))
        key = None if name == "__all__" else name
        raise declared.error(key, f"{' '.join(messages)} Nothing was written.") from None
    study.save()
    for n, text in enumerate(declared.consent_texts, start=1):
        existing = study.consent_texts.filter(version=text["version"]).first()
        if existing is None:
            ConsentText.objects.create(study=study, **text)
        elif (existing.statements, existing.optional, existing.sharing) != (
            text["statements"], text["optional"], text["sharing"],
        ):  # fmt: skip
            raise declared.error(
                f"consent_texts[{n}]",
                f"consent version {text['version']} exists with other statements, and "
                "participants recorded the version they accepted; add a new version instead. "
                "Nothing was written.",
            )


# --- pool, permutations, practice pair and questionnaires --------------------------------------


def _build_pool(declared, study, changed, locked, within, jobs, bars, step, build) -> list[str]:
    """Draw, permute and choose the practice pair and shared items; what else changed."""
    rule = declared.pool_rule()
    if POOL in changed or not study.pool_entries.exists():
        step("Drawing the pool")
        with _under(declared, POOL):
            report = sample_pool(study, rule, within=within or None)
        build.lines += [f"pool: {line}" for line in report.lines()]
    else:
        build.lines.append(f"pool: {study.pool_entries.count():,} triples kept")
    permutations = declared.permutations or full_permutations({})
    record_plan(
        study,
        sources=declared.sources,
        pool=declared.pool,
        permutations=permutations,
        questionnaires=declared.questionnaires,
    )
    practice = declared.practice_item or PRACTICE_RULE
    with _under(declared, POOL):
        corpora = selected_corpora(rule, within or None)
    named = _named_triples(practice, Triple.objects.filter(corpus__in=corpora))
    step("Parsing references and generating permutations")
    with _under(declared, PERMUTATIONS):
        made = generate_permutations(
            pool_triples(study) | named,
            permutations["types"],
            study.max_degree,
            permutations["seed"],
            jobs,
            bars,
        )
    build.lines.append(
        f"permutations: {made.added:,} added, {made.existing:,} there already "
        f"({', '.join(permutations['types'])}, degrees 1–{study.max_degree}, seed "
        f"{permutations['seed']})"
    )
    if made.other_runs:
        build.lines.append(
            f"  {made.other_runs:,} of them were made with another seed, maximum degree or "
            "version, and are used as they are"
        )
    item = _practice(declared, practice, study, Triple.objects.filter(corpus__in=corpora))
    return _set_items(declared, study, item, locked, build)


def _set_items(declared, study, item, locked: str | None, build: Build) -> list[str]:
    """Set the practice pair and shared items; which of them changed (refused once real people
    have taken part)."""
    shared = [
        _keyed_item(declared, f"shared_items[{n}]", key, Triple.objects.all())
        for n, key in enumerate(declared.shared_items, start=1)
    ]
    now = set(study.shared_items.values_list("pk", flat=True))
    moved = []
    if item is not None and item.pk != study.sample_item_id:
        moved.append("practice_item")
    if {i.pk for i in shared} != now:
        moved.append("shared_items")
    if moved and locked:
        _refuse(declared, study, locked, moved)
    study.sample_item = item
    study.save(update_fields=["sample_item"])
    study.shared_items.set(shared)
    if item is not None:
        build.lines.append(f"practice pair: {describe(item)}")
    return moved


def _compose(declared: Declared, study: Study, step, build: Build) -> None:
    count, seed = declared.questionnaires["count"], declared.questionnaires["seed"]
    step(f"Building {count} questionnaires")

    def explain(problem: str) -> str:
        return (
            f"the pool of {study.pool_entries.count():,} triples ([pool] per_corpus = "
            f"{declared.pool['per_corpus']}) cannot fill {count} questionnaire(s) of "
            f"{study.items_per_questionnaire} items: {problem}; draw a larger pool, or ask for "
            "fewer questionnaires or items"
        )

    with _under(declared, f"{QUESTIONNAIRES}.count", explain):
        build_questionnaires(study, count, seed)
    build.lines.append(
        f"questionnaires: {count} built of {study.items_per_questionnaire} items (seed {seed})"
    )


# --- the practice pair -------------------------------------------------------------------------


def _named_triples(practice: dict, candidates: QuerySet[Triple]) -> QuerySet[Triple]:
    """The triples a practice pair named by its texts or key may be built on, so their
    permutations are generated with the pool's."""
    if "reference" in practice:
        found = candidates.filter(segment__reference=practice["reference"])
        return found.filter(corpus__system=practice["system"]) if "system" in practice else found
    if "segment" in practice:
        return candidates.filter(**_triple_lookup(practice))
    return Triple.objects.none()


def _triple_lookup(key: dict) -> dict:
    return {field: key[name] for field, name in zip(HYPOTHESIS_FIELDS, HYPOTHESIS_KEY, strict=True)}


CONTENT_ORDER = ("segment__reference_length", *HYPOTHESIS_FIELDS)


def _practice(declared: Declared, practice: dict, study: Study, candidates) -> Item:
    key = "practice_item"
    if "rule" in practice:
        low, high = practice["min_length"], practice["max_length"]
        found = (
            Permutation.objects.filter(
                triple__pool_entries__study=study,
                perm_type=practice["perm_type"],
                degree=practice["degree"],
                triple__segment__reference_length__range=(low, high),
            )
            .order_by(*(f"triple__{f}" for f in CONTENT_ORDER))
            .first()
        )
        if found is None:
            raise declared.error(
                key,
                f"no triple of the study's pool has a {practice['perm_type']} permutation of "
                f"degree {practice['degree']} with a reference of {low} to {high} words"
                + (
                    ""
                    if declared.practice_item
                    else " (the rule a file without practice_item follows)"
                )
                + "; widen the lengths or name the pair. Nothing was written.",
            )
        return Item.objects.get_or_create(triple=found.triple, permutation=found)[0]
    if "reference" in practice:
        return _practice_by_texts(declared, practice, candidates)
    return _keyed_item(declared, key, practice, candidates)


def _practice_by_texts(declared: Declared, practice: dict, candidates) -> Item:
    triples = _named_triples(practice, candidates).order_by(*HYPOTHESIS_FIELDS)
    if not triples.exists():
        raise declared.error(
            "practice_item.reference",
            "no sentence of the study's corpora has this reference"
            + (f" with a translation by {practice['system']}" if "system" in practice else "")
            + ". Nothing was written.",
        )
    text = practice.get("text")
    for triple in triples:
        if text is None or triple.hypothesis == text:
            return Item.objects.get_or_create(triple=triple, permutation=None)[0]
        permutation = triple.permutations.filter(text=text).order_by("perm_type", "degree").first()
        if permutation is not None:
            return Item.objects.get_or_create(triple=triple, permutation=permutation)[0]
    shown = triples[0].permutations.filter(degree=2).order_by("perm_type")[:3]
    raise declared.error(
        "practice_item.text",
        "neither a hypothesis nor a permutation of that reference reads so"
        + ("; its permutations of degree 2 read: " + "; ".join(repr(p.text) for p in shown))
        * bool(shown)
        + ". Nothing was written.",
    )


def _keyed_item(declared: Declared, key: str, item: dict, candidates) -> Item:
    triple = candidates.filter(**_triple_lookup(item)).first()
    if triple is None:
        raise declared.error(
            key,
            "no imported sentence has this key ("
            + ", ".join(f"{k} = {item[k]!r}" for k in HYPOTHESIS_KEY)
            + "): import its texts first. Nothing was written.",
        )
    if "perm_type" not in item:
        return Item.objects.get_or_create(triple=triple, permutation=None)[0]
    permutation = triple.permutations.filter(
        perm_type=item["perm_type"], degree=item["degree"]
    ).first()
    if permutation is None:
        raise declared.error(
            key,
            f"the sentence has no {item['perm_type']} permutation of degree {item['degree']}"
            " (generate_permutations makes every degree a sentence can take). Nothing was "
            "written.",
        )
    return Item.objects.get_or_create(triple=triple, permutation=permutation)[0]


def describe(item: Item) -> str:
    segment = item.triple.segment
    what = (
        "its hypothesis"
        if item.permutation is None
        else f"a {item.permutation.perm_type} permutation of degree {item.permutation.degree}"
    )
    return (
        f"{segment.testset} {segment.lp} line {segment.number}, {item.triple.corpus.system}, "
        f"{what}: {item.text!r}"
    )


# --- the digest --------------------------------------------------------------------------------


def study_digest(study: Study) -> str:
    """SHA-256 of everything the study shows, by content: its texts, questions, scale ends,
    language and settings participants read (survey.design.shown.SHOWN), the consent
    statements, the practice pair, the shared items, the pool and the questionnaires."""

    def item(item: Item) -> list:
        return [*item_key(item), item.text]

    practice = None
    if study.sample_item_id:
        practice = item(Item.objects.select_related(*ITEM_RELATIONS).get(pk=study.sample_item_id))
    shared = sorted(item(i) for i in study.shared_items.select_related(*ITEM_RELATIONS))
    consent = [
        [c.version, c.statements, c.optional, c.sharing]
        for c in study.consent_texts.order_by("version")
    ] or [[1, *texts.default_consent(study.language).values()]]  # as the first participant gets
    pool = sorted(list(row) for row in pool_triples(study).values_list(*HYPOTHESIS_FIELDS))
    questionnaires = [
        [q.number, q.version, [
            [e.position, e.shared, *item(e.item)]
            for e in q.entries.select_related(*(f"item__{r}" for r in ITEM_RELATIONS))
        ]]
        for q in current_questionnaires(study)
    ]  # fmt: skip
    content = {
        "study": shown.values(study),
        "consent": consent,
        "practice": practice,
        "shared": shared,
        "pool": pool,
        "questionnaires": questionnaires,
    }
    text = json.dumps(content, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
