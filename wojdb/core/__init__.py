"""WOJ-DB's pure core: algorithms and statistics that import nothing from Django."""
