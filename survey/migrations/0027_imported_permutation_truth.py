from django.db import migrations

from wojdb.core.language.rules import rules_for
from wojdb.core.permutations.truth import truths

BATCH = 2000


def fill_imported_truth(apps, schema_editor):
    """Permutations imported from a release before the import stored their truths: from their
    mapping, moved words and shown words, as generation stores them."""
    Permutation = apps.get_model("survey", "Permutation")
    rules, batch = {}, []
    rows = Permutation.objects.filter(displaced__isnull=True).select_related("triple__segment")
    for permutation in rows.order_by("pk").iterator(chunk_size=BATCH):
        code = permutation.triple.segment.target_lang
        if code not in rules:
            rules[code] = rules_for(code)
        displaced, minimal = truths(
            permutation.tokens, permutation.mapping, permutation.moved, rules[code]
        )
        permutation.displaced, permutation.minimal_moves = list(displaced), list(minimal)
        batch.append(permutation)
        if len(batch) == BATCH:
            Permutation.objects.bulk_update(batch, ["displaced", "minimal_moves"])
            batch = []
    Permutation.objects.bulk_update(batch, ["displaced", "minimal_moves"])


class Migration(migrations.Migration):
    dependencies = [
        ("survey", "0026_crossing_words"),
    ]

    operations = [migrations.RunPython(fill_imported_truth, migrations.RunPython.noop)]
