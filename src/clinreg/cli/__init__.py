"""The `clinreg` command line: `main` (the click group) in clinreg.cli.main, shared helpers in clinreg.cli.common*,
and one module per command family. Nothing in the library imports this package."""
