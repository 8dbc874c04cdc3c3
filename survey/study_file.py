"""A study declared in one TOML file: `create_study FILE` reads it, `study_config SLUG` writes it.

The file holds every editable field of :class:`survey.models.Study` by its own name (read from
the model, so a field added to Study is in the file with no change here), the consent texts by
version (each with the statements a participant may answer No to and the one agreeing to the
data's release), and the practice item and shared items by key (test set, language pair,
reference, segment, system, and a permutation's type and degree), so a file written from one
database builds the same study in another holding the same texts. A field left out of the file
keeps the model's default, and a new study's texts left out are those of its `language`.

Updating a study never alters what participants have already seen: while any of its
questionnaires is frozen (started), the fields that make up a questionnaire, and the statements
of an existing consent version, cannot change; the refusal names the questionnaires and fields.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import tomli_w
from django.core.exceptions import ValidationError
from django.db import transaction

from survey.models import ConsentText, Item, Study
from survey.questionnaires import is_frozen
from wojdb.core.io import InputError, read_input

#: Keys of the file beside the Study fields.
PRACTICE_ITEM, SHARED_ITEMS, CONSENT_TEXTS = "practice_item", "shared_items", "consent_texts"
#: Item fields behind the sample_item and shared_items relations.
ITEM_RELATIONS = {"sample_item": PRACTICE_ITEM, "shared_items": SHARED_ITEMS}
#: What a questionnaire is made of: its composition (Table 6.3, the items) and the questions
#: and scale labels shown with every item.
QUESTIONNAIRE_FIELDS = (
    "items_per_questionnaire",
    "permutation_share",
    "shared_share",
    "type_counts",
    "pairs_share_hypothesis",
    "max_degree",
    "holistic_question",
    "holistic_low",
    "holistic_high",
    "order_question",
    "order_low",
    "order_high",
    PRACTICE_ITEM,
    SHARED_ITEMS,
)
HYPOTHESIS_KEY = ("testset", "source_lang", "target_lang", "ref_name", "segment", "system")
PERMUTATION_KEY = ("perm_type", "degree")


class StudyFileError(ValueError):
    """A study file that cannot be applied; nothing was written."""


def study_fields() -> list:
    """The Study fields a file holds: every editable, non-relation field of the model."""
    return [
        f
        for f in Study._meta.concrete_fields
        if f.editable and not f.primary_key and not f.is_relation
    ]


# --- items by key ------------------------------------------------------------------------------


def item_key(item: Item) -> dict:
    segment, corpus = item.triple.segment, item.triple.corpus
    key = dict(
        zip(
            HYPOTHESIS_KEY,
            (
                segment.testset,
                segment.source_lang,
                segment.target_lang,
                segment.ref_name,
                segment.number,
                corpus.system,
            ),
            strict=True,
        )
    )
    if item.permutation is not None:
        key |= {"perm_type": item.permutation.perm_type, "degree": item.permutation.degree}
    return key


def find_item(key, where: str) -> Item:
    if not isinstance(key, dict) or not set(HYPOTHESIS_KEY) <= set(key):
        raise StudyFileError(f"{where}: an item is a table with keys {', '.join(HYPOTHESIS_KEY)}")
    unknown = set(key) - set(HYPOTHESIS_KEY) - set(PERMUTATION_KEY)
    if unknown:
        raise StudyFileError(f"{where}: unknown item keys {', '.join(sorted(unknown))}")
    lookup = {
        "triple__segment__testset": key["testset"],
        "triple__segment__source_lang": key["source_lang"],
        "triple__segment__target_lang": key["target_lang"],
        "triple__segment__ref_name": key["ref_name"],
        "triple__segment__number": key["segment"],
        "triple__corpus__system": key["system"],
    }
    if "perm_type" in key or "degree" in key:
        lookup |= {
            "permutation__perm_type": key.get("perm_type"),
            "permutation__degree": key.get("degree"),
        }
    else:
        lookup["permutation__isnull"] = True
    found = Item.objects.filter(**lookup).first()
    if found is None:
        raise StudyFileError(f"{where}: no item {key} in the database (import its texts first)")
    return found


# --- reading and writing -----------------------------------------------------------------------


@dataclass
class StudyFile:
    """A study file's content: Study field values, items and consent texts."""

    fields: dict
    practice_item: Item | None = None
    shared_items: list[Item] = field(default_factory=list)
    #: version -> {"statements": [...], "optional": [numbers], "sharing": number or None}
    consent_texts: dict[int, dict] = field(default_factory=dict)


def read_study_file(path: Path) -> StudyFile:
    """Parse and check a study file against the model; raises StudyFileError naming the file."""
    try:
        data = tomllib.loads(read_input(path).decode("utf-8"))
    except InputError as e:
        raise StudyFileError(str(e)) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise StudyFileError(f"{path}: not a TOML file: {e}") from None
    names = {f.name for f in study_fields()}
    unknown = set(data) - names - {PRACTICE_ITEM, SHARED_ITEMS, CONSENT_TEXTS}
    if unknown:
        raise StudyFileError(
            f"{path}: unknown keys {', '.join(sorted(unknown))}; a study file holds the Study "
            f"fields ({', '.join(sorted(names))}), {PRACTICE_ITEM}, {SHARED_ITEMS} and "
            f"{CONSENT_TEXTS}"
        )
    consent = {}
    for n, text in enumerate(data.get(CONSENT_TEXTS, [])):
        consent[text.get("version")] = _consent_text(text, f"{path}: {CONSENT_TEXTS} {n + 1}")
    practice = data.get(PRACTICE_ITEM)
    return StudyFile(
        fields={k: v for k, v in data.items() if k in names},
        practice_item=None if practice is None else find_item(practice, f"{path}: {PRACTICE_ITEM}"),
        shared_items=[
            find_item(key, f"{path}: {SHARED_ITEMS} {n + 1}")
            for n, key in enumerate(data.get(SHARED_ITEMS, []))
        ],
        consent_texts=consent,
    )


def study_config(study: Study) -> dict:
    """The study as the content of its file (what `study_config SLUG` writes)."""
    data = {f.name: f.value_from_object(study) for f in study_fields()}
    if study.sample_item is not None:
        data[PRACTICE_ITEM] = item_key(study.sample_item)
    shared = study.shared_items.order_by("pk").select_related(
        "triple__segment", "triple__corpus", "permutation"
    )
    data[SHARED_ITEMS] = [item_key(item) for item in shared]
    # TOML has no null: a text without a statement on sharing leaves the key out.
    data[CONSENT_TEXTS] = [
        {"version": c.version, "statements": c.statements, "optional": c.optional}
        | ({} if c.sharing is None else {"sharing": c.sharing})
        for c in study.consent_texts.order_by("version")
    ]
    return data


def write_study_file(study: Study) -> str:
    return tomli_w.dumps(study_config(study), multiline_strings=True)


# --- applying ----------------------------------------------------------------------------------


def _changes(study: Study, wanted: StudyFile) -> list[str]:
    """Names of the questionnaire fields the file would change."""
    now = study_config(study)
    new = {**now, **wanted.fields}
    new[PRACTICE_ITEM] = None if wanted.practice_item is None else item_key(wanted.practice_item)
    new[SHARED_ITEMS] = sorted(map(item_key, wanted.shared_items), key=str)
    now[SHARED_ITEMS] = sorted(now[SHARED_ITEMS], key=str)
    return [name for name in QUESTIONNAIRE_FIELDS if now.get(name) != new.get(name)]


def apply_study_file(content: StudyFile) -> tuple[Study, bool]:
    """Create the study the file declares, or update the one with its slug. Returns the study
    and whether it was created. Raises StudyFileError, writing nothing, when the file would
    alter a frozen questionnaire or an existing consent version, or fails the model's checks."""
    slug = content.fields.get("slug")
    if not slug:
        raise StudyFileError("the study file names no slug")
    with transaction.atomic():
        study = Study.objects.select_for_update().filter(slug=slug).first()
        created = study is None
        if created:
            study = Study()
        else:
            frozen = [q.number for q in study.questionnaires.order_by("number") if is_frozen(q)]
            changed = _changes(study, content)
            if frozen and changed:
                raise StudyFileError(
                    f"study {slug!r}: questionnaires {', '.join(map(str, frozen))} are frozen "
                    f"(participants started them); the file changes {', '.join(changed)}, which "
                    "would alter them. Nothing was written."
                )
        for name, value in content.fields.items():
            setattr(study, name, value)
        if created:
            study.take_language_defaults(given=content.fields)
        study.sample_item = content.practice_item
        try:
            study.full_clean()
        except ValidationError as e:
            problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in e.message_dict.items())
            raise StudyFileError(f"study {slug!r}: {problems}. Nothing was written.") from None
        study.save()
        study.shared_items.set(content.shared_items)
        _consent(study, content.consent_texts)
    return study, created


def _consent_text(text, where: str) -> dict:
    """A consent text of the file: its statements, the numbers (from 1) of those a participant
    may answer No to, and the number of the one agreeing to the data's release."""
    version, statements = text.get("version"), text.get("statements")
    if not isinstance(version, int) or not (
        isinstance(statements, list) and all(isinstance(s, str) for s in statements)
    ):
        raise StudyFileError(f"{where} needs a version (integer) and statements (a list of texts)")
    unknown = set(text) - {"version", "statements", "optional", "sharing"}
    if unknown:
        raise StudyFileError(f"{where}: unknown keys {', '.join(sorted(unknown))}")
    numbers = range(1, len(statements) + 1)
    optional, sharing = text.get("optional", []), text.get("sharing")
    if not isinstance(optional, list) or any(
        not isinstance(n, int) or n not in numbers for n in optional
    ):
        raise StudyFileError(
            f"{where}: optional lists statement numbers from 1 to {len(statements)}"
        )
    if sharing is not None and (not isinstance(sharing, int) or sharing not in numbers):
        raise StudyFileError(f"{where}: sharing is a statement number from 1 to {len(statements)}")
    return {"statements": statements, "optional": optional, "sharing": sharing}


def _consent(study: Study, texts: dict[int, dict]) -> None:
    """Add the file's new consent versions; participants recorded the version they accepted,
    so an existing version never changes."""
    for version, text in sorted(texts.items()):
        existing = study.consent_texts.filter(version=version).first()
        if existing is None:
            ConsentText.objects.create(study=study, version=version, **text)
        elif (existing.statements, existing.optional, existing.sharing) != (
            text["statements"],
            text["optional"],
            text["sharing"],
        ):
            raise StudyFileError(
                f"study {study.slug!r}: consent version {version} exists with other statements; "
                "add a new version instead. Nothing was written."
            )
