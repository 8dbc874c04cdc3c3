"""Reading a WOJ-DB release with the library alone: no Django, no database.

    from wojdb.release import load_release
    ratings, scores = load_release("wojdb-demo-1.0")
    ratings, scores, judgments = load_release("wojdb-demo-1.0", judgments=True)

The frames are those of the analysis (:mod:`wojdb.core.stats.columns`); see
:mod:`wojdb.core.release.schema` for the release's files and schemas. Importing this module imports
nothing from Django.
"""

from wojdb.core.release import Release, ReleaseError, load_release, read_release

__all__ = ["Release", "ReleaseError", "load_release", "read_release"]
