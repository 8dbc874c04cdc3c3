from django.db import migrations, models


class Migration(migrations.Migration):
    """The about-you answers on the first language name the study's language, not English:
    renamed, keeping every answer (an English study's are the same answers)."""

    dependencies = [
        ("survey", "0009_study_language"),
    ]

    operations = [
        migrations.RenameField("participant", "english_first", "target_first"),
        migrations.RenameField("participant", "english_years", "target_years"),
        migrations.AlterField(
            model_name="participant",
            name="target_first",
            field=models.BooleanField(
                blank=True, help_text="the study's language is a first language", null=True
            ),
        ),
        migrations.AlterField(
            model_name="participant",
            name="target_years",
            field=models.PositiveSmallIntegerField(
                blank=True, help_text="years of speaking the study's language fluently", null=True
            ),
        ),
    ]
