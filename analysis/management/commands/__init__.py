"""Each command's module is read to show its --help: what loads numpy, pandas, scipy and the
like (mostly the modules that do the work) it imports inside `handle`, so that they load only
for a command that runs (tests/test_startup.py)."""
