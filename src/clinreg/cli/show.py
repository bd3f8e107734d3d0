"""`clinreg show RECORD`: one record, as a user needs it before building it."""

from __future__ import annotations

import click

from clinreg.cli.common import format_option, load, refuse_load_errors, root_option


@click.command("show")
@click.argument("record", required=False)
@root_option
@format_option
def show(record, root, fmt):
    """One record before you build it, or every record's id without RECORD.

    RECORD is a dataset id, e.g. pubmed_qa. Shows what it measures, where it sits in the taxonomy (and who placed
    it there), access and the record's own instructions for getting the data, the files it expects under
    --data-dir, its scoring and jury, its generation settings, and the MedHELM editions that include it. An
    unknown id is refused with the closest one."""
    from clinreg.reports import record_index, record_view, render_record

    reg = load(root)
    refuse_load_errors(reg, "a record's description")
    click.echo(render_record(record_view(reg, record) if record else record_index(reg), fmt))
