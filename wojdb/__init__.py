"""WOJ-DB: human-judgment studies of machine-translation word order."""

__version__ = "0.1.0"
