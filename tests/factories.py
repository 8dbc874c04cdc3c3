"""Small builders for test data: a study with real-looking items and questionnaires."""

from __future__ import annotations

import itertools

from django.utils import timezone

from survey.models import (
    Corpus,
    Item,
    Permutation,
    Questionnaire,
    QuestionnaireEntry,
    Segment,
    Study,
    Triple,
)

_counter = itertools.count(1)

SENTENCES = [
    ("The cat sat on the mat .", "The cat is sitting on the mat ."),
    ("He went to the market yesterday .", "Yesterday he went to the market ."),
    ("The government announced new measures .", "The government has announced new measures ."),
    ("She reads a book every evening .", "Every evening she reads a book ."),
]


def make_triple(system: str = "SysA", lp: str = "de-en", segment_id: int | None = None) -> Triple:
    src, tgt = lp.split("-")
    n = segment_id or next(_counter)
    hyp, ref = SENTENCES[n % len(SENTENCES)]
    segment, _ = Segment.objects.get_or_create(
        testset="newstest2021",
        source_lang=src,
        target_lang=tgt,
        ref_name="A",
        number=n,
        defaults=dict(
            year=2021,
            source=f"Quelle {n}",
            reference=ref,
            source_length=2,
            reference_length=len(ref.split()),
        ),
    )
    corpus, _ = Corpus.objects.get_or_create(
        testset="newstest2021", year=2021, source_lang=src, target_lang=tgt, system=system
    )
    return Triple.objects.create(
        corpus=corpus,
        segment=segment,
        hypothesis=hyp,
        hypothesis_length=len(hyp.split()),
        da_raw=70.0,
    )


def make_hypothesis_item(**kwargs) -> Item:
    return Item.objects.create(triple=make_triple(**kwargs))


def make_permutation_item(triple: Triple, perm_type: str = "order", degree: int = 2) -> Item:
    tokens = triple.segment.reference.split()
    tokens[0], tokens[1] = tokens[1], tokens[0]
    perm = Permutation.objects.create(
        triple=triple,
        perm_type=perm_type,
        degree=degree,
        seed=1,
        text=" ".join(tokens),
        tokens=tokens,
        moved=[0, 1],
        mapping=[1, 0, *range(2, len(tokens))],
        quality=1 - (degree - 1) / 17,
        software_version="test",
    )
    return Item.objects.create(triple=triple, permutation=perm)


# Every setting the default participant texts name, so a study made here can open.
FILLED_SETTINGS = {
    "researcher_name": "Ada Researcher",
    "researcher_email": "ada@example.org",
    "supervisor_name": "Grace Supervisor",
    "supervisor_email": "grace@example.org",
    "institution": "the Example School of Computing",
    "duration": "about 20 minutes",
    "reward": "You will be paid £3 through the platform.",
    "results_date": "in 2027",
    "ethics_contact": "ethics@example.org",
}


def make_study(questionnaires: int = 2, items: int = 4, **study_fields) -> Study:
    """A study whose questionnaires hold `items` items each (half hypotheses, half permutations).

    It is launched (its arrivals are real participants) unless `launched_at=None` is given;
    its questionnaires stay editable until a real participant starts them either way."""
    n = next(_counter)
    study_fields = FILLED_SETTINGS | {"launched_at": timezone.now()} | study_fields
    study = Study.objects.create(name=f"Study {n}", slug=f"study-{n}", **study_fields)
    study.sample_item = make_hypothesis_item()
    study.save()
    study.consent_texts.create(version=1, statements=["I agree to take part.", "I may withdraw."])
    for number in range(1, questionnaires + 1):
        q = Questionnaire.objects.create(
            study=study, number=number, seed=number, software_version="test"
        )
        for position in range(1, items + 1):
            if position % 2:
                item = make_hypothesis_item()
            else:
                item = make_permutation_item(q.entries.last().item.triple)
            QuestionnaireEntry.objects.create(questionnaire=q, position=position, item=item)
    return study
