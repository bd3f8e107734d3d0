"""Validation rules, one module per concern; `clinreg.rules.engine` imports them all and runs them."""
