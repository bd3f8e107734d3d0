"""The registry's core: the data model, reading files with locations, diagnostics and the catalogue of codes.

Imports from here point only to clinreg.text and the standard library (and pydantic and pyyaml)."""
