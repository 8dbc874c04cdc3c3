"""The report's pure parts: text formatting and model summaries (no Django)."""
