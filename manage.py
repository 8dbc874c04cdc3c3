#!/usr/bin/env python
"""Django's command-line utility for WOJ-DB."""

import sys

if __name__ == "__main__":
    from wojdb.cli import run

    run(sys.argv)
