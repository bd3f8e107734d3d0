"""`clinreg export`: a thin command over clinreg.exports.harness (imported only when it runs)."""

from __future__ import annotations

from pathlib import Path

import click

from clinreg.cli.common import (
    access_tiers, bad_label_option, data_dir_option, guard, load_for_data, need_build_extra, quiet_datasets, root_option,
)


@click.command("export")
@click.argument("harness", type=click.Choice(["lm-eval", "inspect", "helm"]))
@click.argument("datasets", nargs=-1, metavar="[DATASET]...")
@data_dir_option
@click.option("--release", default=None, metavar="X", help="Export the registry as it stood at release X.")
@click.option("--access", default=None, metavar="TIERS", help="Only records of these access tiers, e.g. public,gated.")
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N", help="A seeded sample of N source rows per mapping.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the --limit sample.")
@bad_label_option
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="The folder to write.")
@click.option("--force", is_flag=True, help="Replace an existing output folder.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@root_option
def export(harness, datasets, data_dir, release, access, limit, seed, on_bad_label, output, force, fmt, root):
    """Write a folder that lm-evaluation-harness, Inspect AI or HELM runs: instances as JSON lines plus task files.

    Without DATASET, every record whose data is at hand (in --data-dir, or on the hub) is exported and the
    others are listed as skipped; a named DATASET must build.
    """
    need_build_extra("export")
    tiers = access_tiers(access)
    reg = load_for_data(root, release)
    with guard("export"):
        from clinreg.exports.harness import export as run_export

        quiet_datasets()
        report = run_export(reg, harness, output, list(datasets) or None, data_dir=data_dir, access=tiers, limit=limit,
                            seed=seed, on_bad_label=on_bad_label, force=force)
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        click.echo(dumps("export", report.to_dict()))
        return
    for dataset_id, reason in sorted(report.skipped.items()):
        click.echo(f"clinreg: skipped {dataset_id}: {reason}", err=True)
    total = sum(m.instances for m in report.mappings)
    click.echo(f"exported {len(report.mappings)} mapping(s), {total} instance(s) for {harness} -> {output}")
