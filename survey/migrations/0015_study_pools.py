# Each study owns its pool: the one global pool (Triple.in_pool) becomes every existing study's
# own, so every study keeps exactly the sentences its questionnaires were and can be built from.

import django.db.models.deletion
from django.db import migrations, models

BATCH = 2000


def pool_per_study(apps, schema_editor):
    Study = apps.get_model("survey", "Study")
    Triple = apps.get_model("survey", "Triple")
    PoolEntry = apps.get_model("survey", "PoolEntry")
    pool = list(Triple.objects.filter(in_pool=True).order_by("pk").values_list("pk", flat=True))
    for study in Study.objects.order_by("pk").values_list("pk", flat=True):
        PoolEntry.objects.bulk_create(
            (PoolEntry(study_id=study, triple_id=triple) for triple in pool), batch_size=BATCH
        )


def one_pool(apps, schema_editor):
    """Back to one flag: a triple in any study's pool is in the pool."""
    Triple = apps.get_model("survey", "Triple")
    PoolEntry = apps.get_model("survey", "PoolEntry")
    Triple.objects.filter(pk__in=PoolEntry.objects.values("triple_id")).update(in_pool=True)


class Migration(migrations.Migration):

    dependencies = [
        ('survey', '0014_segment_scores'),
    ]

    operations = [
        migrations.CreateModel(
            name='PoolEntry',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pool_entries', to='survey.study')),
                ('triple', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pool_entries', to='survey.triple')),
            ],
            options={
                'verbose_name_plural': 'pool entries',
                'constraints': [models.UniqueConstraint(fields=('study', 'triple'), name='unique_pool_entry')],
            },
        ),
        migrations.RunPython(pool_per_study, one_pool),
        migrations.RemoveField(
            model_name='triple',
            name='in_pool',
        ),
    ]
