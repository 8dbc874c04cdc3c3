"""A study declared in one TOML file: `create_study FILE` builds it (survey.design.build),
`study_config SLUG` writes it back.

The file holds every editable field of :class:`survey.models.Study` by its own name (read from
the model, so a field added to Study is in the file with no change here, typed by the model
field and checked by its validators), and the tables of `wojdb.core.study_file`: the study's
sources, pool, permutations, questionnaires, practice pair, shared items and consent texts. A
field left out keeps the model's default, and a new study's texts left out are those of its
`language`.
"""

from __future__ import annotations

from pathlib import Path

import tomli_w
from django.core.exceptions import ValidationError
from django.db import models

from survey import platforms
from survey.design.questionnaires import ITEM_RELATIONS
from survey.models import Item, Study, StudyPlan
from wojdb.core import study_file as core
from wojdb.core.design.composition import RANDOM
from wojdb.core.formats import LAYOUTS
from wojdb.core.io import MAX_INT
from wojdb.core.study_file import (
    CONSENT_TEXTS,
    PERMUTATIONS,
    POOL,
    PRACTICE_ITEM,
    QUESTIONNAIRES,
    SHARED_ITEMS,
    SOURCES,
    Declared,
    Key,
    StudyFileError,
)
from wojdb.core.vocabulary import PERMUTATION_TYPES

__all__ = ["StudyFileError", "read_study_file", "study_config", "study_fields"]

#: The longest value of a platform's setting (a web address with its tokens, at most).
SETTING_LENGTH = 2000
#: The longest text a study's own text field takes from a file (an information sheet runs to
#: a few thousand characters).
MAX_TEXT = 100_000
TYPE_COUNTS = core.TableOf(
    core.Text(choices=("shared", "unique")),
    core.TableOf(core.Text(choices=(*PERMUTATION_TYPES, RANDOM)), core.Integer(0, 10_000)),
)


def study_fields() -> list:
    """The Study fields a file holds: every editable, non-relation field of the model."""
    return [
        f
        for f in Study._meta.concrete_fields
        if f.editable and not f.primary_key and not f.is_relation
    ]


class _ModelField(Key):
    """A Study field's key: its type, then the model field's own checks (choices, formats,
    ranges, language codes)."""

    def __init__(self, key: Key, model_field: models.Field):
        self.key, self.field, self.expected = key, model_field, key.expected

    def check(self, value, where):
        value = self.key.check(value, where)
        try:
            self.field.clean(value, None)
        except ValidationError as e:
            raise where.error(" ".join(e.messages)) from None
        return value


class PlatformSettings(Key):
    """`platform_settings`: a table for each platform by its name, of the settings it has, each
    checked by the platform (survey/platforms/); a problem names its key and line."""

    expected = "a table of platforms' settings"

    def check(self, value, where):
        if not isinstance(value, dict):
            raise self.wrong(value, where)
        for path, problem in platforms.setting_problems(value):
            raise where.at(*path).error(problem)
        text = core.Text(SETTING_LENGTH)
        return {
            name: {key: text.check(v, where.at(name, key)) for key, v in table.items()}
            for name, table in value.items()
        }


def _bounds(f: models.Field, low: int, high: int) -> tuple[int, int]:
    for v in f.validators:
        if getattr(v, "code", "") == "min_value":
            low = max(low, v.limit_value)
        elif getattr(v, "code", "") == "max_value":
            high = min(high, v.limit_value)
    return low, high


def _key_of(f: models.Field) -> Key:
    if f.choices:
        return core.Text(choices=tuple(value for value, _ in f.choices))
    if isinstance(f, models.BooleanField):
        return core.Boolean()
    if isinstance(f, models.PositiveSmallIntegerField):
        return core.Integer(*_bounds(f, 0, 32767))
    if isinstance(f, models.PositiveIntegerField):
        return core.Integer(*_bounds(f, 0, MAX_INT))
    if isinstance(f, models.FloatField):
        return core.Number(*_bounds(f, -1e300, 1e300))
    if isinstance(f, models.JSONField) and f.name == "type_counts":
        return TYPE_COUNTS
    if isinstance(f, models.JSONField) and f.name == "platform_settings":
        return PlatformSettings()
    if isinstance(f, models.CharField | models.TextField):
        return core.Text(f.max_length or MAX_TEXT, blank=f.blank)
    return core.Scalar()  # any other field: its own checks (to_python, validators) decide


def study_keys() -> dict[str, Key]:
    return {f.name: _ModelField(_key_of(f), f) for f in study_fields()}


def read_study_file(path: Path) -> Declared:
    """Read and check a study file, every key typed; raises StudyFileError naming the file, the
    line and the key. Nothing is looked up in the database yet."""
    return core.read(path, study_keys(), [name for name, _, _ in LAYOUTS])


# --- writing -----------------------------------------------------------------------------------


def item_key(item: Item) -> dict:
    """An item by key: its test set, language pair, reference, line and system, and a
    permutation's type and degree."""
    segment, corpus = item.triple.segment, item.triple.corpus
    values = (segment.testset, segment.source_lang, segment.target_lang, segment.ref_name,
              segment.number, corpus.system)  # fmt: skip
    key = dict(zip(core.HYPOTHESIS_KEY, values, strict=True))
    if item.permutation is not None:
        key |= {"perm_type": item.permutation.perm_type, "degree": item.permutation.degree}
    return key


def study_config(study: Study, folder: Path | None = None) -> dict:
    """The study as the content of its file (what `study_config SLUG` writes): the practice
    pair and shared items by key, and the plan's sources with paths relative to `folder`
    (absolute without one)."""
    data = {f.name: f.value_from_object(study) for f in study_fields()}
    plan = StudyPlan.objects.filter(study=study).first()
    if plan is not None and plan.sources:
        data[SOURCES] = core.relative_sources(plan.sources, folder)
    for name in (POOL, PERMUTATIONS, QUESTIONNAIRES):
        if plan is not None and getattr(plan, name) is not None:
            data[name] = getattr(plan, name)
    if study.sample_item is not None:
        data[PRACTICE_ITEM] = item_key(study.sample_item)
    shared = study.shared_items.order_by("pk").select_related(*ITEM_RELATIONS)
    data[SHARED_ITEMS] = [item_key(item) for item in shared]
    # TOML has no null: a text without a statement on sharing leaves the key out.
    data[CONSENT_TEXTS] = [
        {"version": c.version, "statements": c.statements, "optional": c.optional}
        | ({} if c.sharing is None else {"sharing": c.sharing})
        for c in study.consent_texts.order_by("version")
    ]
    return data


def write_study_file(study: Study, folder: Path | None = None) -> str:
    text = tomli_w.dumps(study_config(study, folder), multiline_strings=True)
    if study.pool_entries.exists() and not getattr(_plan(study), "pool", None):
        # A pool drawn before pools were declared (or by hand) cannot be written as a rule.
        text = (
            f"# The study's pool of {study.pool_entries.count():,} triples was not drawn by a "
            "[pool] rule, so this file\n# does not describe it: add a [pool] table to draw one "
            "when building from this file.\n"
        ) + text
    return text


def _plan(study: Study) -> StudyPlan | None:
    return StudyPlan.objects.filter(study=study).first()


def record_plan(study: Study, **tables) -> None:
    """Keep what a command did to the study as its file's tables (pool, permutations,
    questionnaires), so `study_config` writes it."""
    StudyPlan.objects.update_or_create(study=study, defaults=tables)
