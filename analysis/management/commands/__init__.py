"""Each command's module is read to show its --help: it imports at its top what its options
need, and inside `handle` what it runs, so that numpy, pandas and the like load only for a
command that runs (tests/test_startup.py)."""
