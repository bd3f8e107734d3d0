"""Rows into instances: the mapping build (`build.RecordBuild`, the one build that `clinreg build`, the export,
the lock and `build_instances` run), which mappings and splits it covers (`mappingselection`), the rows it keeps
(`rowselection`, `sampling`), gold labels, the leak check, canary and provenance stamps, canonical JSON and its
hashes, check-data, the lock file, and the instance files plain `build` writes (`write`)."""
