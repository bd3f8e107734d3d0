"""Validation rules, one module per concern; `clinreg.rules.engine` imports them all and runs them.

A check is a function decorated `@rule("CLR...")`. Its code's name, default severity, title and explanation
(with a bad and a good example) are in the catalogue, `clinreg.core.codes.<family>`, where `clinreg explain`
reads them; the family is the name of the check's module here.
"""
