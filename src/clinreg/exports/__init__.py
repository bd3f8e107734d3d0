"""Writing what other tools read: a harness folder per harness (lm-eval, Inspect AI, HELM) with the files they
ship (`harness_files/`), and instance files (`clinreg build --format`)."""
