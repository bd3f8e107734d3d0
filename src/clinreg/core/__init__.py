"""The registry's core: the data model, reading files with locations (`store`; a release or git ref: `gitref`),
diagnostics, the catalogue of codes and the build errors as data (`builderrors`).

Imports from here point only to clinreg.text, clinreg.errors and the standard library (and pydantic and pyyaml)."""
