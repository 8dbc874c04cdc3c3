from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('survey', '0025_word_marks'),
    ]

    operations = [
        migrations.AddField(
            model_name='triple',
            name='crossing_aligner',
            field=models.CharField(blank=True, help_text='the aligner behind crossing_words', max_length=100),
        ),
        migrations.AddField(
            model_name='triple',
            name='crossing_words',
            field=models.JSONField(blank=True, help_text="0-based positions of the hypothesis's mark units (whitespace words; characters where the script has no spaces) whose alignment links cross another link", null=True),
        ),
    ]
