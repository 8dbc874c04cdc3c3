"""The sections of chapter 7's report, one module per topic: each builds its Section from the
analysis's frames and results."""
