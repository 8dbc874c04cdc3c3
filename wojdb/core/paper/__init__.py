"""Paper questionnaires: layout, printing and scan reading, with no Django imports.

`layout` describes every box of a printed questionnaire (and reads/writes `layout.json`),
`printing` typesets the PDFs, `scanning` registers scanned pages and classifies their boxes.
"""
