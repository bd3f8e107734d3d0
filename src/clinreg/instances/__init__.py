"""Rows into instances: the mapping build, gold labels, leak check, canary and provenance stamps, canonical JSON
and its hashes, check-data, the lock file, sampling and selection. `build.build` is the one entry point."""
