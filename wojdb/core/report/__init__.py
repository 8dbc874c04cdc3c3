"""Chapter 7's report without Django: built from the tidy frames (build), its sections, figures,
text tables and model summaries; analysis/report.py writes it out."""
