"""`clinreg overlap` (compute the split figures file from copies of the data, or check it) and `clinreg
contamination` (every record's declared contamination facts, also in HELM's contamination.yaml shape): thin
commands over clinreg.instances.figures and clinreg.reports.contamination."""

from __future__ import annotations

from pathlib import Path

import click

from clinreg.cli.common import EXIT_FINDINGS, EXIT_OK, data_dir_option, fail, load, refuse_load_errors, root_option
from clinreg.cli.common_build import guard, load_for_data, need_build_extra, quiet_datasets


@click.command("overlap")
@click.option("--check", is_flag=True,
              help="Do not write; recompute and exit 1 naming every record whose figures differ from the file.")
@data_dir_option
@click.option("--hub", is_flag=True, help="Also read records without a mirror folder from the hub (needs network).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The figures file (default: clinreg.overlap.json at the registry root).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@root_option
def overlap(check, data_dir, hub, output, fmt, root):
    """Fingerprint every split of every record whose data is at hand, and count duplicates inside each
    evaluation split and overlaps with the record's other splits; write the figures file that cards, `show` and
    the leaderboard read. Records whose data is not at hand are listed as not computed, never as zero."""
    need_build_extra("overlap")
    reg = load_for_data(root)
    if data_dir is not None and not Path(data_dir).is_dir():
        raise fail(f"--data-dir {data_dir} is not a folder")
    with guard("overlap"):
        from clinreg.instances import figures as figs

        path = output or reg.root / figs.FIGURES_FILE
        quiet_datasets()
        old = figs.read_figures(path)
        if check and old is None:
            raise fail(f"no figures file at {path}; run `clinreg overlap --data-dir DIR` first", EXIT_FINDINGS)
        fresh = figs.compute_figures(reg, data_dir, hub=hub)
        kept: list[str] = []
        if not check:
            written, kept = figs.merge_figures(old, fresh)
            figs.write_figures(path, written)
    from clinreg.instances import figures_lines
    from clinreg.text import dumps

    changed = figs.drift(old, fresh) if check else []
    if fmt == "json":
        click.echo(dumps("overlap_check" if check else "overlap",
                         {"file": str(path), "drift": changed, "computed": sorted(fresh["records"]),
                          "not_computed": fresh["not_computed"]} if check else {"file": str(path), **fresh,
                                                                               "kept": kept}))
    else:
        for record_id, entry in sorted(fresh["records"].items()):
            for line in figures_lines(record_id, entry["mappings"]):
                click.echo(line)
        for record_id, why in sorted(fresh["not_computed"].items()):
            click.echo(f"{record_id}: {figs.NOT_COMPUTED} ({why})")
        click.echo(f"method: {fresh['method']}")
        if check:
            for line in changed:
                click.echo(f"drift: {line}")
        verb = f"{path}: {len(changed)} drifted," if check else f"wrote {path}:"
        click.echo(f"{verb} {len(fresh['records'])} record(s) computed, {len(fresh['not_computed'])} not computed"
                   + (f"; kept as the file held them (their data not at hand now): {', '.join(kept)}" if kept else ""))
    if check and not fresh["records"]:  # a check that compared nothing must not pass
        click.echo("clinreg: error: no record's data could be read, so nothing was checked; pass --data-dir DIR",
                   err=True)
        raise click.exceptions.Exit(EXIT_FINDINGS)
    raise click.exceptions.Exit(EXIT_FINDINGS if changed else EXIT_OK)


@click.command("contamination")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "helm"]), default="text", show_default=True,
              help="helm: the declared facts as HELM's contamination.yaml (points: models, groups, level, "
                   "description); facts naming no model or no level are left out and named on stderr.")
@root_option
def contamination(fmt, root):
    """Every record's declared contamination facts, each with its source."""
    from clinreg.instances import declared_facts
    from clinreg.reports import helm_points

    reg = load(root)
    refuse_load_errors(reg, "the records' contamination facts")
    if fmt == "helm":
        from clinreg.text import yaml_dump

        helm = helm_points(reg)
        for item in helm["left_out"]:
            click.echo(f"clinreg: left out of HELM's shape: {item['record']}: {item['why']}", err=True)
        click.echo("---\n" + yaml_dump({"points": helm["points"]}), nl=False)
        return
    records = []
    for record in sorted(reg.datasets.values(), key=lambda r: r.id):
        facts, note = declared_facts(record)
        records.append({"record": record.id, "declared": facts, "note": note})
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("contamination", {"records": records, "helm": helm_points(reg)}))
        return
    for entry in records:
        if not entry["declared"]:
            continue
        for f in entry["declared"]:
            click.echo(f"{entry['record']}: {f['statement']}\n  source: {f['source']}")
    stated = sum(1 for e in records if e["declared"])
    click.echo(f"{stated} of {len(records)} record(s) declare contamination facts; the others' lists are empty "
               "(no source read states one)")
