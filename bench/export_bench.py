"""Time export_wojdb on 1,000,000 simulated ratings in a fresh SQLite database.

Usage: .venv/bin/python bench/export_bench.py [--participants 20000] [--keep DIR]
Target (issue): under 30 s for 1,000,000 ratings. The study has 40 questionnaires of 50 items
(20 shared), every participant rates all 50; rows are bulk-inserted, then the command is timed
as a researcher runs it (a new process).
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTIONNAIRES, ITEMS, SHARED = 40, 50, 20


def populate(participants: int, seed: int = 1) -> int:
    """Build the study with bulk inserts; returns the number of ratings."""
    from django.db import connection, transaction

    from analysis.models import Metric, MetricScore
    from survey.models import (
        Corpus,
        Item,
        Participant,
        ParticipantLanguage,
        Permutation,
        Questionnaire,
        QuestionnaireEntry,
        Segment,
        Study,
        Triple,
    )

    rng = random.Random(seed)
    n_items = SHARED + QUESTIONNAIRES * (ITEMS - SHARED)
    words = [f"w{n}" for n in range(15)]
    with transaction.atomic():
        corpus = Corpus.objects.create(
            testset="newstest2021", year=2021, source_lang="de", target_lang="en", system="Sys"
        )
        segments = Segment.objects.bulk_create(
            Segment(
                testset="newstest2021",
                year=2021,
                source_lang="de",
                target_lang="en",
                number=n + 1,
                source=f"Quelle {n}",
                reference=" ".join(rng.sample(words, 10)),
                source_length=2,
                reference_length=10,
            )
            for n in range(n_items)
        )
        triples = Triple.objects.bulk_create(
            Triple(
                corpus=corpus,
                segment=s,
                hypothesis=" ".join(rng.sample(words, 9)),
                hypothesis_length=9,
                da_raw=rng.uniform(20, 100),
                aligned_share=rng.random(),
            )
            for s in segments
        )
        perms = Permutation.objects.bulk_create(
            Permutation(
                triple=t,
                perm_type=rng.choice(["order", "swap", "phrase", "choice"]),
                degree=(d := rng.randint(1, 10)),
                seed=n,
                text=t.segment.reference,
                tokens=t.segment.reference.split(),
                moved=[0, 1],
                mapping=list(range(10)),
                quality=1 - (d - 1) / 17,
                software_version="bench",
            )
            for n, t in enumerate(triples)
            if n % 2
        )
        perm_of = {p.triple_id: p for p in perms}
        items = Item.objects.bulk_create(
            Item(triple=t, permutation=perm_of.get(t.pk)) for t in triples
        )
        study = Study.objects.create(name="Export benchmark", slug="bench")
        study.consent_texts.create(version=1, statements=["I agree."])
        shared, unique = items[:SHARED], items[SHARED:]
        questionnaires = Questionnaire.objects.bulk_create(
            Questionnaire(study=study, number=n + 1, seed=n, software_version="bench")
            for n in range(QUESTIONNAIRES)
        )
        entries = []
        for n, q in enumerate(questionnaires):
            chosen = [(i, True) for i in shared]
            chosen += [
                (i, False) for i in unique[n * (ITEMS - SHARED) : (n + 1) * (ITEMS - SHARED)]
            ]
            rng.shuffle(chosen)
            entries += [
                QuestionnaireEntry(questionnaire=q, position=p + 1, item=i, shared=s)
                for p, (i, s) in enumerate(chosen)
            ]
        QuestionnaireEntry.objects.bulk_create(entries, batch_size=5000)
        people = Participant.objects.bulk_create(
            (
                Participant(
                    study=study,
                    questionnaire=questionnaires[n % QUESTIONNAIRES],
                    status="completed",
                    share_data=True,
                    simulated=True,
                    consent_version=1,
                    age=rng.randint(18, 70),
                    gender=rng.choice(["male", "female", "other", "not_say", ""]),
                    education=rng.choice(["school", "undergraduate", "masters", "phd", ""]),
                    target_first=rng.choice([True, False, None]),
                )
                for n in range(participants)
            ),
            batch_size=5000,
        )
        ParticipantLanguage.objects.bulk_create(
            (ParticipantLanguage(participant=p, language="English", fluency=7) for p in people),
            batch_size=5000,
        )
        metrics = [Metric.objects.create(name=name, builtin=True) for name in ("DTED", "DERP")]
        MetricScore.objects.bulk_create(
            MetricScore(metric=m, item=i, score=rng.random()) for m in metrics for i in items
        )
        by_questionnaire = {}
        for e in entries:
            by_questionnaire.setdefault(e.questionnaire_id, []).append((e.position, e.item_id))
        start = datetime(2024, 5, 1, tzinfo=UTC).replace(tzinfo=None)
        rows = []
        for p in people:
            for position, item in by_questionnaire[p.questionnaire_id]:
                shown = start + timedelta(seconds=rng.randrange(10**7), microseconds=position)
                rows.append(
                    (
                        p.pk,
                        item,
                        position,
                        False,
                        None if rng.random() < 0.02 else rng.randint(1, 5),
                        None if rng.random() < 0.02 else rng.randint(1, 5),
                        str(shown),
                        str(shown + timedelta(seconds=rng.uniform(3, 60))),
                        rng.randrange(2000, 60000),
                        0,
                        False,
                        "",
                    )
                )
        with connection.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO survey_rating (participant_id, item_id, position, practice, "
                'holistic, "order", shown_at, answered_at, client_ms, revisions, flagged, comment) '
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                rows,
            )
    return len(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=20_000, help="50 ratings each")
    parser.add_argument("--keep", type=Path, help="also keep the release in this new folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as var:
        env = {**os.environ, "WOJDB_HOME": var, "DATABASE_URL": f"sqlite:///{var}/bench.db"}
        os.environ.update(env)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
        sys.path.insert(0, str(ROOT))
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", verbosity=0)
        began = time.perf_counter()
        ratings = populate(args.participants)
        filled = time.perf_counter() - began
        out = Path(var) / "release"
        began = time.perf_counter()
        subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "export_wojdb", "--out", str(out), "-v", "0"],
            env=env,
            check=True,
        )
        exported = time.perf_counter() - began
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        if args.keep:
            subprocess.run(["cp", "-r", str(out), str(args.keep)], check=True)
    print(
        f"bulk insert of {ratings:,} ratings ({args.participants:,} participants): {filled:.1f} s"
    )
    print(f"export_wojdb, CSV + Parquet ({size / 1e6:,.0f} MB): {exported:.1f} s (target < 30 s)")


if __name__ == "__main__":
    main()
