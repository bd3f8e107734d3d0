"""The board as a person reads it (issue 51): in the terminal table, Markdown, CSV and HTML, a published row holds
the release's own mean win rate with or without your runs and with or without --comparable-only, each row says
whose it is, your run of a published model is a row of its own, and the release is named in the header."""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser

import pytest

from results.helpers import DATA, ROOT, invoke, lm_eval_results, write

RELEASE = "medhelm-2025-07-31"


def stated() -> dict[str, float]:
    from clinreg.results.published import published_file

    data = json.loads(published_file(RELEASE).read_text(encoding="utf-8"))
    return {r["model"]: r["value"] for r in data["reported_win_rates"]}


def gpt4o(tmp_path):
    results = lm_eval_results("clinreg_med_qa", 0.83)
    results["config"].update({"model": "openai-chat-completions", "model_args": "model=gpt-4o-2024-05-13"})
    return str(write(tmp_path / "results_gpt4o.json", json.dumps(results)))


def render(fmt, *args):
    result = invoke("leaderboard", "--root", ROOT, *args, "--format", fmt)
    assert result.exit_code == 0, result.output
    return result.stdout


class Cells(HTMLParser):
    """The cells of the overall table, row by row, as text."""

    def __init__(self):
        super().__init__()
        self.rows, self.cell, self.inside = [], None, False

    def handle_starttag(self, tag, attrs):
        if tag == "tr" and any(k == "data-overall" for k, _ in attrs):
            self.inside = True
            self.rows.append([])
        elif tag == "td" and self.inside:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "td" and self.inside and self.cell is not None:
            self.rows[-1].append(self.cell.strip())
            self.cell = None
        elif tag == "tr":
            self.inside = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def read_rows(fmt, text):
    """{(model, source): mean win rate as printed} from a rendered board."""
    if fmt == "markdown":
        head, *rows = [line for line in text.splitlines() if line.startswith("| ") and "All benchmarks" in line
                       or line.startswith("| Rank")][:1000]
        names = [c.strip() for c in head.strip("|").split("|")]
        cells = [dict(zip(names, (c.strip() for c in r.strip("|").split("|")))) for r in rows]
        return {(c["Model"].replace("\\", ""), c["Source"]): c["Mean win rate"] for c in cells}
    if fmt == "csv":
        rows = csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#"))
        return {(r["model"], r["source"]): r["mean_win_rate"] for r in rows}
    if fmt == "html":
        parser = Cells()
        parser.feed(text)
        return {(r[1], r[2]): r[3].split()[0] for r in parser.rows}
    out = {}
    for line in text.splitlines():
        m = re.match(r"\s*\d+\s+(.+?)\s{2,}(yours|medhelm-\S+)\s+(\d\.\d{3})\s", line)
        if m:
            out[(m.group(1), m.group(2))] = m.group(3)
    return out


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "html"])
@pytest.mark.parametrize("extra", [[], ["--comparable-only"]])
def test_a_published_rows_mwr_is_the_releases_with_and_without_your_runs(tmp_path, fmt, extra):
    release = stated()
    alone = read_rows(fmt, render(fmt, RELEASE, *extra))
    beside = read_rows(fmt, render(fmt, gpt4o(tmp_path), str(DATA / "inspect_mockllm_med_qa.json"), "--with",
                                   RELEASE, *extra))
    gpt = "openai/gpt-4o-2024-05-13"
    for model, value in release.items():
        assert alone[(model, RELEASE)] == f"{value:.3f}"
        assert beside[(gpt if model == "GPT-4o (2024-05-13)" else model, RELEASE)] == f"{value:.3f}"
    # your run is its own row beside the release's, marked yours
    if not extra:
        assert (f"{gpt} (yours)", "yours") in beside and ("mockllm/model", "yours") in beside
    # one fixed precision: every printed mean win rate has three decimals
    assert all(re.fullmatch(r"\d\.\d{3}", v) for v in beside.values()), beside


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "html"])
def test_every_format_names_the_release_and_explains_the_marks(tmp_path, fmt):
    text = render(fmt, gpt4o(tmp_path), "--with", RELEASE)
    flat = " ".join(text.split())
    assert f"Published: {RELEASE} (MedHELM leaderboard of 2025-07-31, published 2025-07-31)" in flat
    assert "Source = whose numbers the row holds" in flat
    assert "* after an instance count" in flat  # the release's rows count the registry's instances


def test_the_mark_names_your_side_and_what_it_differs_from(tmp_path):
    raw = render("markdown", str(DATA / "inspect_mockllm_med_qa.json"), "--with", RELEASE)
    text = " ".join(raw.split())
    assert "your run's harness (inspect vs helm); instance set (ids:" in text
    assert "vs 1,000 instances)" in text and f"differ from {RELEASE}'s" in text
    published_rows = [line for line in raw.splitlines() if line.startswith("| 1 | DeepSeek R1 |")]
    assert published_rows and not any("differ" in row for row in published_rows)


def test_a_three_instance_run_is_not_the_releases_instance_set(tmp_path):
    rows = list(csv.DictReader(line for line in io.StringIO(render("csv", gpt4o(tmp_path), "--with", RELEASE))
                               if not line.startswith("#")))
    (mine,) = [r for r in rows if r["source"] == "yours"]
    assert "instance set (100 instances vs 1,000 instances)" in mine["differs"]


@pytest.mark.parametrize("command", [["results", "import"], ["leaderboard"], ["results", "export", "--to",
                                                                              "every-eval-ever", "-o", "out"]])
def test_every_command_takes_a_release_id_and_a_near_miss_gets_a_did_you_mean(tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    ok = invoke(*command, RELEASE, "--root", ROOT)
    assert ok.exit_code == 0, ok.output
    bad = invoke(*command, "medhelm-2025-07-30", "--root", ROOT)
    assert bad.exit_code == 2 and "did you mean 'medhelm-2025-07-31'?" in bad.output


def test_your_run_that_gives_no_count_has_an_unknown_instance_set_not_the_releases(tmp_path):
    results = lm_eval_results("clinreg_med_qa", 0.83)
    del results["n-samples"]  # the run says nothing of how many instances it scored
    results["config"].update({"model": "openai-chat-completions", "model_args": "model=gpt-4o-2024-05-13"})
    mine = str(write(tmp_path / "results_gpt4o.json", json.dumps(results)))
    rows = list(csv.DictReader(line for line in io.StringIO(render("csv", mine, "--with", RELEASE))
                               if not line.startswith("#")))
    (row,) = [r for r in rows if r["source"] == "yours"]
    # the registry's count filled in for the run is not the run's own: never counted as the release's set
    assert "instance set (unknown vs 1,000 instances)" in row["differs"], row["differs"]


def test_leaderboard_diff_joins_your_run_of_a_published_model_with_the_releases_row(tmp_path):
    text = (DATA.parents[2] / "docs" / "examples" / "results.json").read_text(encoding="utf-8")
    mine = write(tmp_path / "mine.json", text.replace('"A"', '"openai/gpt-4o-2024-05-13"'))
    result = invoke("leaderboard", "diff", RELEASE, str(mine), "--root", ROOT)
    assert result.exit_code == 0, result.output
    # the release names it `GPT-4o (2024-05-13)`, your file by its id: one model, on both boards, in the table
    assert "No table" not in result.stdout
    (row,) = [line for line in result.stdout.splitlines() if line.startswith("openai/gpt-4o-2024-05-13 ")]
    assert re.search(r"0\.579\s+\d\.\d{3}", row), row
