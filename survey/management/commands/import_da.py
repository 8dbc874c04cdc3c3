from survey.management.commands import import_judgments


class Command(import_judgments.Command):
    help = "The same as import_judgments. " + import_judgments.Command.help
