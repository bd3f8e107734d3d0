"""`clinreg build`, `check-data` and `lock`: thin commands over clinreg.instances and clinreg.exports (imported only
when they run)."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import click

from clinreg.cli.common import EXIT_FINDINGS, EXIT_OK, bad_label_option, data_dir_option, fail, root_option
from clinreg.cli.common_build import guard, load_for_data, need_build_extra, quiet_datasets, refuse_record_errors
from clinreg.text import closest, shown

LOCK_FILE = "clinreg.lock.json"


def _record(reg, dataset: str):
    if dataset in reg.datasets:
        return reg.datasets[dataset]
    if any(f.kind == "dataset" and Path(f.rel).stem == dataset for f in reg.files):
        raise fail(f"{dataset}: the record does not validate; run `clinreg validate`")
    close = closest(dataset, sorted(reg.datasets))
    if close:
        raise fail(f"no dataset {dataset!r} in {reg.root}; did you mean {close!r}?")
    raise fail(f"no dataset {dataset!r} in {reg.root} (known: {', '.join(sorted(reg.datasets)) or 'none'})")


class _Bar:
    """Progress on stderr through rich, shown only on a terminal."""

    def __init__(self, progress) -> None:
        self.progress, self.task = progress, None

    def begin(self, label: str, total: int | None) -> None:
        if self.task is not None:
            self.progress.update(self.task, visible=False)
        self.task = self.progress.add_task(label, total=total)

    def advance(self, rows: int) -> None:
        self.progress.advance(self.task, rows)


@contextmanager
def _progress(quiet: bool):
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as progress:
        yield _Bar(progress)


@click.command("build")
@click.argument("dataset")
@click.option("--mapping", default=None, metavar="M",
              help="Build only this mapping (default: every mapping of the record).")
@click.option("--split", default=None, metavar="S", help="Build only this split (default: the mapping's splits).")
@data_dir_option
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N",
              help="A seeded sample of N source rows per mapping.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the --limit sample.")
@click.option("--streaming", is_flag=True, help="Read batch by batch, keeping memory bounded.")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "json", "parquet", "hf"]), default="jsonl",
              show_default=True,
              help="jsonl: one instance per line; json: one array; parquet: a folder of shards; hf: a saved "
                   "DatasetDict folder. parquet and hf need -o.")
@click.option("--shard-rows", type=click.IntRange(min=1), default=100_000, show_default=True, metavar="N",
              help="--format parquet: at most N instances per shard file.")
@click.option("-o", "--output", type=click.Path(path_type=Path), default=None,
              help="Output path (jsonl: default stdout).")
@bad_label_option
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bar and no summary (skipped-row counts still go to stderr).")
@click.option("--force", is_flag=True, help="Replace an existing output file or folder.")
@root_option
def build(dataset, mapping, split, data_dir, limit, seed, streaming, fmt, shard_rows, output, on_bad_label, quiet,
          force, root):
    """Build a dataset's instances: inputs from the template, choices, gold letters or references."""
    need_build_extra("build")
    if fmt in ("parquet", "hf") and output is None:
        raise fail(f"--format {fmt} needs -o PATH")
    if output is not None and str(output) != "-":
        _check_output(output, folder=fmt in ("hf", "parquet"), force=force)
    reg = load_for_data(root)
    record = _record(reg, dataset)
    refuse_record_errors(reg, dataset)
    with guard(dataset):
        from clinreg.instances import RecordBuild, record_info, write_instances

        quiet_datasets(downloads=not quiet)
        made = RecordBuild(record, reg, mapping, split, data_dir, limit, seed, streaming, on_bad_label=on_bad_label)
        with _progress(quiet) as bar:
            count = write_instances(made.batches(bar), fmt, output, shard_rows=shard_rows, info=record_info(record))
    for line in made.location.notices:  # warnings about where the data came from: shown even with -q
        click.echo(f"clinreg: {line}", err=True)
    for notice in made.report.notices():
        if not quiet or notice.kind == "skipped":  # skipped bad labels are told even with -q
            click.echo(f"clinreg: {shown(notice.text)}", err=True)
    if not quiet:
        click.echo(f"built {count} instance(s) of {dataset} -> {output or 'stdout'}", err=True)


def _check_output(output: Path, *, folder: bool, force: bool) -> None:
    """Refuse, before any work, to replace an existing output without --force, or an output of another kind."""
    if not (output.exists() or output.is_symlink()):
        return
    if not force:
        raise fail(f"{output} exists; refusing to overwrite it (use --force)")
    if folder and not output.is_dir():
        raise fail(f"{output} exists and is not a folder; --format hf and parquet write a folder")
    if not folder and not output.is_file():
        raise fail(f"{output} exists and is not a regular file")


@click.command("check-data")
@click.argument("dataset")
@data_dir_option
@click.option("--rows", type=click.IntRange(min=1), default=1000, show_default=True, metavar="N",
              help="Check the first N rows of each split.")
@click.option("--overlap/--no-overlap", default=True, show_default=True,
              help="Fingerprint every split and report duplicates inside an evaluation split (CLR914) and overlaps "
                   "with the record's other splits (CLR915); reads each split whole.")
@click.option("--strict", is_flag=True, help="Duplicates and overlaps are errors (exit 1), not warnings.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True)
@root_option
def check_data(dataset, data_dir, rows, overlap, strict, fmt, root):
    """Check a copy of the data against its record: splits, columns, template variables and sampled labels, and
    (unless --no-overlap) duplicates and overlaps between splits, with each split's fingerprint.

    Finds the data as `build` does: the --data-dir mirror folder, a fixture folder inside the registry, then the
    hub, which is asked first which commit the pinned revision is (files the local cache holds at that commit are
    not downloaded again); offline, or when the hub cannot be reached, only huggingface_hub's cache is read.
    """
    need_build_extra("check-data")
    from clinreg.core import RENDERERS, Report

    reg = load_for_data(root)
    record = _record(reg, dataset)
    with guard(dataset):
        from clinreg.instances import check_data as run_checks

        quiet_datasets()
        summary: list[dict] = []
        figures: list[dict] | None = [] if overlap else None
        diagnostics = run_checks(record, reg.dataset_files[dataset], data_dir, rows, root=reg.root, summary=summary,
                                 overlap=figures, strict=strict)
    report = Report(diagnostics=diagnostics, files=1)
    if fmt == "text":
        from clinreg.instances import figures_lines

        for entry in summary:
            dropped = f", {entry['dropped']} dropped by filters" if entry["dropped"] else ""
            click.echo(f"{dataset}/{entry['mapping']}: split {entry['split']!r}: {entry['rows']} row(s) checked, "
                       f"{entry['labelled']} labelled, {entry['unlabelled']} unlabelled{dropped}", err=True)
        for line in figures_lines(dataset, figures or []):
            click.echo(line, err=True)
        if figures:
            from clinreg.instances import OVERLAP_METHOD

            click.echo(f"method: {OVERLAP_METHOD}", err=True)
    if fmt == "json":
        import json

        from clinreg.text import dumps

        data = json.loads(RENDERERS["json"](report))
        if figures is not None:
            from clinreg.instances import OVERLAP_METHOD

            data["overlap"] = {"method": OVERLAP_METHOD, "mappings": figures}
        click.echo(dumps("validation", data))
    else:
        click.echo(RENDERERS[fmt](report))
    raise click.exceptions.Exit(EXIT_FINDINGS if report.has_errors else EXIT_OK)


@click.command("lock")
@click.option("--check", is_flag=True, help="Do not write; exit 1 and name every mapping whose instances drifted.")
@data_dir_option
@click.option("--hub", is_flag=True, help="Also build records without a mirror folder from the hub (needs network).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help=f"Lock file (default: {LOCK_FILE} at the registry root).")
@bad_label_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@root_option
def lock(check, data_dir, hub, output, on_bad_label, fmt, root):
    """Record, per mapping, the source revision or mirror hash and the sha256 of its instances."""
    need_build_extra("lock")
    reg = load_for_data(root)
    path = output or reg.root / LOCK_FILE
    if data_dir is not None and not Path(data_dir).is_dir():
        raise fail(f"--data-dir {data_dir} is not a folder")
    with guard("lock"):
        from clinreg.instances import lock as locking

        quiet_datasets()
        old = locking.read_lock(path) if check else None
        fresh = locking.compute_lock(reg, data_dir, on_bad_label=on_bad_label, hub=hub)
        if check:
            outcome = locking.compare(old, fresh, reg.datasets)
            from clinreg.text import dumps

            click.echo(dumps("lock_check", outcome.to_dict()) if fmt == "json" else outcome.render(path))
            if not outcome.drift and not outcome.matching:  # a check that compared nothing must not pass
                click.echo("clinreg: error: no mapping could be built, so nothing was checked; pass --data-dir DIR",
                           err=True)
                raise click.exceptions.Exit(EXIT_FINDINGS)
            raise click.exceptions.Exit(EXIT_FINDINGS if outcome.drift else EXIT_OK)
        locking.write_lock(path, fresh)
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("lock", {"lock": str(path), "locked": sorted(fresh["mappings"]), "skipped": fresh["skipped"]}))
    else:
        click.echo(locking.render_summary(fresh, path))
