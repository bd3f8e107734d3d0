"""Trees, parsers and a headless Chromium runner shared by the report tests."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
from html.parser import HTMLParser
from pathlib import Path

from clirunner import clinreg as invoke  # noqa: F401 - the reports tests' name for it
from trees import CATEGORY, DATASET, TAXONOMY, replace_in, write_tree


ADMIN = """\
# yaml-language-server: $schema=../schemas/category.schema.json
id: admin
name: Administration
definition: Work that keeps a clinic running.
subcategories:
  - id: billing
    name: Billing & coding
    definition: Turning care into claims.
    tasks:
      - id: code_encounters
        name: Code encounters
        definition: Assign billing codes to an encounter.
        provenance: {kind: drafted}
        review: {status: proposed}
      - id: appeal_denials
        name: Appeal denials
        definition: Write an appeal against a denied claim.
        provenance: {kind: drafted}
        review: {status: rejected}
  - id: scheduling
    name: Scheduling
    definition: Putting people and rooms together.
    tasks:
      - id: build_rosters
        name: Build rosters
        definition: Draft a staff roster.
        provenance: {kind: published, quote: A name, citation: {text: A report, doi: 10.1000/xyz}}
        review: {status: proposed}
"""

CODES = replace_in(replace_in(replace_in(replace_in(replace_in(DATASET, "id: qa_set", "id: codes"), "name: QA set",
                                                    "name: Codes"),
                   "access: {tier: public}", "access: {tier: gated, instructions: Sign a DUA.}"),
                   "tasks: [answer_questions]", "tasks: [code_encounters, answer_questions]"),
                   "  - id: qa_set\n", "  - id: codes\n")
ROSTERS = replace_in(replace_in(replace_in(DATASET, "id: qa_set", "id: rosters"), "name: QA set", "name: Rosters"),
                     "tasks: [answer_questions]", "tasks: [build_rosters]").replace("  - id: qa_set\n",
                                                                                    "  - id: rosters\n")


def richer_tree(root: Path, files: dict[str, str | None] | None = None) -> Path:
    """The good tree plus a second category, a gated dataset spanning two categories and a thin subcategory."""
    return write_tree(root, {
        "taxonomy/taxonomy.yaml": replace_in(TAXONOMY, "categories: [care]", "categories: [care, admin]"),
        "taxonomy/admin.yaml": ADMIN,
        "registry/datasets/codes.yaml": CODES,
        "registry/datasets/rosters.yaml": ROSTERS,
        **(files or {}),
    })


def tree_with_task_name(root: Path, name: str) -> Path:
    """The good tree with one task named `name` (quoted for YAML)."""
    return write_tree(root, {"taxonomy/care.yaml": replace_in(CATEGORY, "name: Answer questions",
                                                              "name: " + json.dumps(name))})


def coverage_json(root: Path, *extra: str) -> dict:
    result = invoke("coverage", "--root", root, "--format", "json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["data"]


# --------------------------------------------------------------------------------------------- parsers


class DataAttributes(HTMLParser):
    """Collect the data-* attributes of every element that carries `key` (e.g. data-subcategory)."""

    def __init__(self, key: str):
        super().__init__()
        self.key = key
        self.found: dict[str, dict[str, str]] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.key in attrs and attrs[self.key] is not None:
            found = {k[5:]: v for k, v in attrs.items() if k.startswith("data-")}
            if "hidden" in attrs:
                found[":hidden"] = "yes"
            self.found[attrs[self.key]] = found


def data_attributes(html: str, key: str) -> dict[str, dict[str, str]]:
    parser = DataAttributes(key)
    parser.feed(html)
    return parser.found


def markdown_table(text: str, first_header: str) -> list[dict[str, str]]:
    """The rows of the Markdown table whose header row starts with `| first_header |`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    header = [c.strip() for c in lines[start].strip("|").split(" | ")]
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, [c.strip() for c in line[1:-1].split(" | ")])))
    return rows


def csv_table(text: str) -> tuple[dict[str, str], list[dict[str, str]]]:
    """(no metadata: plain CSV has none, see csv_with_metadata; rows as dicts)."""
    assert not text.startswith("#"), "coverage CSV must be plain CSV"
    return {}, list(csv.DictReader(io.StringIO(text)))


def csv_with_metadata(invoke, root, tmp_path, *args: str) -> tuple[dict[str, str], list[dict[str, str]]]:
    """`coverage --format csv -o FILE`: (the FILE.meta.json sidecar, the rows of FILE)."""
    import json

    target = tmp_path / f"coverage-{len(list(tmp_path.glob('coverage-*.csv')))}.csv"
    result = invoke("coverage", "--root", root, "--format", "csv", *args, "-o", target)
    assert result.exit_code == 0, result.output
    meta = json.loads((tmp_path / (target.name + ".meta.json")).read_text(encoding="utf-8"))
    return meta, csv_table(target.read_text(encoding="utf-8"))[1]


# --------------------------------------------------------------------------------------------- chromium


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0"]


def run_chromium(browser: str, page: Path, profile: Path, *args: str, fragment: str = "",
                 timeout: float = 20) -> tuple[str, str]:
    """Run headless Chromium on a local file; return (stdout, stderr). Kills its own process group on timeout."""
    cmd = [browser, *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri() + fragment]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"chromium took longer than {timeout}s on {page}") from None
    return out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def console_problems(stderr: str) -> list[str]:
    """Console output and uncaught errors from Chromium's log; our pages log nothing."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
