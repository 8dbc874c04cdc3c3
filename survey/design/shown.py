"""What a study's participants are shown, and which of it is fixed once real people took part.

One list for every path that changes a study — the admin's study form, a study file's build
(`create_study`), `sample_pool` — and for the build's digest, so that no path can change what
another refuses to, and the digest covers what participants see. The sentences themselves (a
reference, a translation, a permutation, an item) are held the same way (`locked_content`).

What a participant reads before or while answering (the questions and their scale ends, the
texts up to the practice pair and the feedback on it, the study's language, the design that
chose their items, the practice pair) is FIXED once the study was launched, printed, started
or answered by a real participant: their answers are to those words, and a release states one
text per question. What is shown only after the answers (the debriefing) and the contacts and
facts a participant uses afterwards (whom to write to, when results come) stay editable, so
they can be kept right for everyone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Q

from survey.models import (
    Item,
    Permutation,
    PoolEntry,
    QuestionnaireEntry,
    Rating,
    Segment,
    Study,
    Triple,
)
from wojdb.core import texts

#: Table 6.3's layout: which items a questionnaire holds.
LAYOUT = (
    "items_per_questionnaire",
    "permutation_share",
    "shared_share",
    "type_counts",
    "pairs_share_hypothesis",
    "max_degree",
)
#: The two questions and their scale ends, shown with every pair.
QUESTIONS = (
    "holistic_question",
    "holistic_low",
    "holistic_high",
    "order_question",
    "order_low",
    "order_high",
)
#: Read before or while answering: the pages' language, the title on every page, the
#: information sheet and its facts that decide whether to take part, the consent form, the
#: instructions, the feedback on the practice pair, and whether both questions must be answered.
BEFORE = (
    "language",
    "project_title",
    "information_sheet",
    "duration",
    "reward",
    "data_use",
    "consent_intro",
    "consent_closing",
    "instructions",
    "sample_holistic_note",
    "sample_order_note",
    "require_both_answers",
    "word_marks",
)
#: The practice pair and the items every questionnaire shares.
ITEMS = ("sample_item", "shared_items")
#: Fixed once real people have taken part (`real_participation`).
FIXED = LAYOUT + QUESTIONS + BEFORE + ITEMS
#: Shown after the answers, or facts participants use afterwards: they stay editable.
AFTER = (
    "debriefing",
    "researcher_name",
    "researcher_email",
    "supervisor_name",
    "supervisor_email",
    "institution",
    "ethics_contact",
    "results_date",
)
#: Everything participants are shown (the build's digest covers it).
SHOWN = FIXED + AFTER
#: Never shown to a participant, or how the study is run: the study's name is shown only as its
#: title while `project_title` is empty (see `title`).
NOT_SHOWN = (
    "name",
    "slug",
    "is_open",
    "abandon_after_minutes",
    "platform",
    "platform_settings",
    "allow_repeats",
    "completion_code",
    "decline_code",
    "min_answered_pairs",
    "platform_return_url",
)
#: The name of the title participants read, as a value of `values`.
TITLE = "project_title"


def real_participation(study: Study) -> str | None:
    """Why what the study's participants were shown can no longer change — it was launched, its
    questionnaires were printed, or real people have taken part — or None. Pilot and simulated
    participants never count: a dry run does not lock the design (survey/design/lifecycle.py)."""
    real = study.participants.real()
    answers = (
        Rating.objects.filter(participant__in=real)
        .filter(Q(holistic__isnull=False) | Q(order__isnull=False))
        .count()
    )
    if answers:
        return f"it has {answers:,} real answer(s)"
    if started := real.count():
        return f"{started:,} real participant(s) have started it"
    if study.launched:
        return "it was launched"
    if study.paper_layouts.exists():
        return "its questionnaires were printed for paper participants"
    return None


def _same(name: str, before: Any, after: Any) -> bool:
    if name == "sample_item":
        return _pk(before) == _pk(after)
    if name == "shared_items":
        return {_pk(i) for i in before} == {_pk(i) for i in after}
    if isinstance(before, str) and isinstance(after, str):
        # As a page shows it: a browser's text box sends "\r\n" and drops the final line end.
        return texts.normalise_line_ends(before).strip() == texts.normalise_line_ends(after).strip()
    return before == after


def _pk(item: Item | int | None) -> int | None:
    return item.pk if isinstance(item, Item) else item


def saved(study: Study, names=FIXED) -> dict[str, Any]:
    """The saved values of `names` (the practice pair by id, the shared items as a set of ids),
    read from the database, whatever the object in hand holds."""
    fields = [n for n in names if n not in ITEMS]
    row = Study.objects.filter(pk=study.pk).values(*fields, "name", "sample_item").get()
    if "shared_items" in names:
        row["shared_items"] = set(
            Study.shared_items.through.objects.filter(study_id=study.pk).values_list(
                "item_id", flat=True
            )
        )
    return row


def fixed_changes(study: Study, given: Mapping[str, Any]) -> list[str]:
    """The FIXED fields `given` (new values by field name) would change, in FIXED's order; a new
    `name` changes the title participants read while `project_title` is empty."""
    before = saved(study)
    changed = [n for n in FIXED if n in given and not _same(n, before[n], given[n])]
    if TITLE not in changed and "name" in given:
        title = given.get(TITLE, before[TITLE])
        if not title and not _same("name", before["name"], given["name"]):
            changed.append("name")
    return changed


def refusal(study: Study, reason: str, changed: list[str], what: str) -> str:
    """Why `what` (the file, this form) may not change the FIXED fields `changed`."""
    return (
        f"study {study.slug!r}: {reason}; {what} changes {', '.join(changed)}, which would alter "
        "what they are shown"
    )


def values(study: Study) -> dict[str, Any]:
    """Everything of the study's own fields participants are shown, as they read it: the
    title in place of `project_title` (the study's name when it has none of its own)."""
    shown = {n: getattr(study, n) for n in SHOWN if n not in ITEMS}
    shown[TITLE] = texts.project_title(study)
    return shown


def locked_content(sentence: Segment | Triple | Permutation | Item) -> str | None:
    """Why a sentence, translation, permutation or item may no longer change — a study whose
    pool or items hold it can no longer change what it shows (`real_participation`) — or
    None."""
    if isinstance(sentence, Segment):
        triples = Triple.objects.filter(segment=sentence)
    elif isinstance(sentence, Triple):
        triples = Triple.objects.filter(pk=sentence.pk)
    else:  # a permutation or an item, of one triple
        triples = Triple.objects.filter(pk=sentence.triple_id)
    items = Item.objects.filter(triple__in=triples)
    # Each relation in a subquery of its own: joined into one query with DISTINCT, they took
    # PostgreSQL seconds per admin page even for a study of four items.
    studies = Study.objects.filter(
        Q(pk__in=PoolEntry.objects.filter(triple__in=triples).values("study"))
        | Q(pk__in=QuestionnaireEntry.objects.filter(item__in=items).values("questionnaire__study"))
        | Q(sample_item__in=items)
        | Q(pk__in=Study.shared_items.through.objects.filter(item__in=items).values("study"))
    )
    for study in studies.order_by("slug"):
        if reason := real_participation(study):
            return f"study {study.slug!r} shows it, and {reason}"
    return None
