"""`clinreg export`: a thin command over clinreg.exports.harness and clinreg.exports.croissant (imported only when
it runs)."""

from __future__ import annotations

from pathlib import Path

import click

from clinreg.cli.common import access_tiers, bad_label_option, data_dir_option, fail, load, root_option
from clinreg.cli.common_build import guard, load_for_data, need_build_extra, quiet_datasets


@click.command("export")
@click.argument("harness", type=click.Choice(["lm-eval", "inspect", "helm", "croissant", "medhelm"]))
@click.argument("datasets", nargs=-1, metavar="[DATASET]...")
@data_dir_option
@click.option("--release", default=None, metavar="X", help="Export the registry as it stood at release X.")
@click.option("--access", default=None, metavar="TIERS", help="Only records of these access tiers, e.g. public,gated.")
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N",
              help="A seeded sample of N source rows per mapping.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the --limit sample.")
@bad_label_option
@click.option("--mapping", default=None, metavar="M", help="medhelm: the mapping to export, for a record with several.")
@click.option("--lock", "lock_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="croissant: the lock file whose sha256s to use (default: clinreg.lock.json at the registry root, if "
                   "any).")
@click.option("--choice-scoring", type=click.Choice(["generate", "loglikelihood"]), default="generate",
              show_default=True, help="lm-eval's closed tasks: generate the letter with MedHELM's settings, or score "
                                      "the options by log-likelihood (not MedHELM-comparable).")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="The folder to write.")
@click.option("--force", is_flag=True, help="Replace an existing output folder (croissant: existing files).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@root_option
def export(harness, datasets, data_dir, release, access, limit, seed, on_bad_label, mapping, lock_file, choice_scoring,
           output, force, fmt, root):
    """Write a folder that lm-evaluation-harness, Inspect AI or HELM runs: instances as JSON lines plus task files.

    Without DATASET, every record whose data is at hand (in --data-dir, or on the hub) is exported; each other
    record is named with why, in the README and the manifest too, and the exit code is 1. A named DATASET must
    build. A registry with a record that fails to load exports nothing: the errors are listed and the exit is 1.

    `croissant` writes one Croissant 1.1 description per record (every record without DATASET) from the
    records alone, with the lock's sha256 of each mapping's instances where it holds one; it reads no data. A record
    that fails to load is named with its error, the others are written, and the exit code is 1.

    `medhelm` writes one DATASET as a medhelm configurable benchmark (config YAML, prompt file, CSV, judge prompt
    for a jury, run entries and a README with the `medhelm-run` commands), or refuses what the format cannot
    express (exit 1).
    """
    if harness == "croissant":
        given = [name for name, value in (("--data-dir", data_dir), ("--limit", limit)) if value is not None]
        if given:
            raise fail(f"{given[0]} does not apply to `export croissant`, which reads no data")
        _croissant(datasets, release, access, lock_file, output, force, fmt, root)
        return
    if lock_file is not None:
        raise fail("--lock applies only to `export croissant`")
    if choice_scoring != "generate" and harness != "lm-eval":
        raise fail("--choice-scoring applies only to `export lm-eval`")
    if mapping is not None and harness != "medhelm":
        raise fail("--mapping applies only to `export medhelm`")
    if access is not None and harness == "medhelm":
        raise fail("--access does not apply to `export medhelm`, which writes the one DATASET named")
    need_build_extra("export")
    if harness == "medhelm":
        _medhelm(datasets, release, root, output, fmt, dict(mapping=mapping, data_dir=data_dir, limit=limit, seed=seed,
                                                            on_bad_label=on_bad_label, force=force))
        return
    tiers = access_tiers(access)
    reg = load_for_data(root, release)
    with guard("export"):
        from clinreg.exports import export as run_export

        quiet_datasets()
        report = run_export(reg, harness, output, list(datasets) or None, data_dir=data_dir, access=tiers, limit=limit,
                            seed=seed, on_bad_label=on_bad_label, force=force,
                            choice_scoring=choice_scoring)
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("export", report.to_dict()))
    else:
        for dataset_id, reason in sorted(report.skipped.items()):
            click.echo(f"clinreg: not exported {dataset_id}: {reason}", err=True)
        total = sum(m.instances for m in report.mappings)
        click.echo(f"exported {len(report.mappings)} mapping(s), {total} instance(s) for {harness} -> {output}")
    _findings_if(report.skipped)


def _findings_if(missing) -> None:
    """An export never drops a record in silence: each one not written is named (above, and in the README and
    manifest), and the exit code is 1."""
    if missing:
        from clinreg.cli.common import EXIT_FINDINGS

        raise click.exceptions.Exit(EXIT_FINDINGS)


def _croissant(datasets, release, access, lock_file, output, force, fmt, root):
    tiers = access_tiers(access)
    reg = load(root, release)
    with guard("export croissant"):
        from clinreg.exports import export_croissant

        report = export_croissant(reg, output, list(datasets) or None, lock_path=lock_file, access=tiers, force=force)
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("croissant_export", report.to_dict()))
    else:
        for made in report.files:
            click.echo(f"{made.file}: {len(made.left_out)} item(s) left out; instances with sha256: "
                       f"{', '.join(made.instances_with_sha256) or 'none'}")
        click.echo(f"wrote {len(report.files)} Croissant file(s) -> {output}"
                   + (f" (lock {report.lock})" if report.lock else " (no lock read: no instance files listed)"))
        for dataset_id, why in report.not_written.items():
            click.echo(f"clinreg: not written {dataset_id}: {why}", err=True)
    _findings_if(report.not_written)


def _medhelm(datasets, release, root, output, fmt, options):
    if len(datasets) != 1:
        raise fail("`export medhelm` writes one DATASET: name exactly one")
    reg = load_for_data(root, release)
    with guard("export medhelm"):
        from clinreg.exports import export_medhelm

        quiet_datasets()
        report = export_medhelm(reg, datasets[0], output, **options)
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("medhelm_export", report.to_dict()))
        return
    click.echo(f"exported {report.record}/{report.mapping} as medhelm benchmark {report.name}: {report.instances} "
               f"instance(s), metrics {', '.join(report.metrics)} -> {output} (run it as its README.md says)")
    for line in report.differs:
        click.echo(f"clinreg: differs: {line}", err=True)
