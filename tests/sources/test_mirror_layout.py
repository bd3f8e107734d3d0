"""Mirror folders as distributed (`<owner>__<name>[@<commit>]`), builds through a read step, and the gold-leak rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirunner import run

from record_fixtures import build, record, record_dict, write_root
from clinreg.cli.build import build as build_command
from clinreg.cli.build import check_data
from clinreg.core.builderrors import GoldLeak, SourceUnavailable
from clinreg.instances.leaks import MIN_REFERENCE_CHARS, SPAN_CHARS, leaked_span
from clinreg.sources.origin import locate, open_reader
from clinreg.sources.mirror import git_head
from clinreg.sources.splits import FileSplitReader

COMMIT = "a" * 40
OTHER = "b" * 40
QA = {
    "input_template": "{{ question }}",
    "choices": {"fixed": ["yes", "no"]},
    "label": {"encoding": "string_set", "column": "answer", "map": {"yes": "A", "no": "B"}, "positive": "yes"},
}


def github(read: dict | None = None, commit: str | None = COMMIT) -> dict:
    source = {"type": "github", "repo": "someone/repo", "paths": ["test.csv"], "read": read
              or {"splits": {"test": {"files": "test.csv"}}}}
    if commit:
        source["commit"] = commit
    return source


def write_csv(folder: Path, name: str, rows: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [",".join(rows[0])] + [",".join(str(v) for v in r.values()) for r in rows]
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def qa_rows(*answers: str) -> list[dict]:
    return [{"question": f"q{i}", "answer": a} for i, a in enumerate(answers)]


def fake_clone(folder: Path, head: str, *, ref: str | None = None, packed: bool = False) -> None:
    git = folder / ".git"
    (git / "refs" / "heads").mkdir(parents=True, exist_ok=True)
    if ref is None:
        (git / "HEAD").write_text(head + "\n")
        return
    (git / "HEAD").write_text(f"ref: {ref}\n")
    if packed:
        (git / "packed-refs").write_text(f"# pack-refs with: peeled fully-peeled sorted\n{'c' * 40} "
                                         f"refs/heads/other\n{head} {ref}\n")
    else:
        (git / ref).write_text(head + "\n")


# ----------------------------------------------------------------------------------------------- folders and commits


def test_commit_folder_is_preferred_over_the_plain_folder(tmp_path):
    write_csv(tmp_path / "someone__repo", "test.csv", qa_rows("no"))
    write_csv(tmp_path / f"someone__repo@{COMMIT}", "test.csv", qa_rows("yes"))
    rec = record(QA, source=github())
    assert locate(rec, tmp_path).folder == (tmp_path / f"someone__repo@{COMMIT}").resolve()
    assert [i.answer for i in build(rec, tmp_path)[0]] == ["A"]


def test_short_commit_folder_is_found(tmp_path):
    write_csv(tmp_path / f"someone__repo@{COMMIT[:12]}", "test.csv", qa_rows("no"))
    assert [i.answer for i in build(record(QA, source=github()), tmp_path)[0]] == ["B"]


def test_two_records_of_one_repo_read_their_own_commit(tmp_path):
    write_csv(tmp_path / f"someone__repo@{COMMIT}", "test.csv", qa_rows("yes"))
    write_csv(tmp_path / f"someone__repo@{OTHER}", "test.csv", qa_rows("no", "no"))
    old = build(record(QA, source=github()), tmp_path)[0]
    new = build(record(QA, source=github(commit=OTHER)), tmp_path)[0]
    assert [i.answer for i in old] == ["A"] and [i.answer for i in new] == ["B", "B"]


@pytest.mark.parametrize("layout", ["sha", "ref", "packed"])
def test_clone_at_another_commit_is_refused_naming_both(tmp_path, layout):
    folder = write_csv(tmp_path / "someone__repo", "test.csv", qa_rows("yes"))
    fake_clone(folder, OTHER, ref=None if layout == "sha" else "refs/heads/main", packed=layout == "packed")
    assert git_head(folder) == OTHER
    with pytest.raises(SourceUnavailable,
                       match=rf"clone at commit {OTHER[:12]}, but the record pins "
                             rf"{COMMIT[:12]}.*someone__repo@{COMMIT[:12]}"):
        locate(record(QA, source=github()), tmp_path)


@pytest.mark.parametrize("layout", ["sha", "ref", "packed"])
def test_clone_at_the_pinned_commit_is_read(tmp_path, layout):
    folder = write_csv(tmp_path / "someone__repo", "test.csv", qa_rows("yes"))
    fake_clone(folder, COMMIT.upper() if layout == "sha" else COMMIT, ref=None if layout == "sha"
               else "refs/heads/main", packed=layout == "packed")
    assert [i.answer for i in build(record(QA, source=github()), tmp_path)[0]] == ["A"]


def test_unpinned_record_reads_any_clone(tmp_path):
    folder = write_csv(tmp_path / "someone__repo", "test.csv", qa_rows("yes"))
    fake_clone(folder, OTHER)
    assert locate(record(QA, source=github(commit=None)), tmp_path).folder == folder.resolve()


def test_missing_folder_names_the_expected_path(tmp_path):
    with pytest.raises(SourceUnavailable,
                       match=rf"no folder someone__repo \(or someone__repo@{COMMIT[:12]}\) in --data-dir "
                             r".*DIR/someone__repo"):
        locate(record(QA, source=github()), tmp_path)
    physionet = record(QA, source={"type": "physionet", "project": "MIMIC-RRS",
                                   "read": {"splits": {"test": {"files": "t.csv"}}}},
                       access={"tier": "gated", "instructions": "credentialed access"})
    with pytest.raises(SourceUnavailable, match=r"no folder fixture in --data-dir .* DIR/fixture; the files come from "
                                                 r"the PhysioNet project MIMIC-RRS; the record reads t.csv"):
        locate(physionet, tmp_path)


def test_every_missing_folder_says_where_the_files_come_from_and_which_are_read(tmp_path):
    # Issue 40, item 11: MedMCQA's error named neither Google Drive nor dev.json.
    from clinreg.core.store import load_registry

    reg = load_registry()
    with pytest.raises(SourceUnavailable, match=r"the files come from Google Drive, https://drive\.google\.com/.*; "
                                                 r"the record reads dev\.json$"):
        locate(reg.datasets["med_mcqa"], tmp_path)
    for ds in reg.datasets.values():
        if ds.source.type == "huggingface":
            continue  # read from the hub when no folder is given
        try:
            locate(ds, tmp_path)
        except SourceUnavailable as exc:
            assert "the files come from" in str(exc), ds.id
            if getattr(ds.source, "read", None) is not None:
                assert "the record reads" in str(exc), ds.id


def test_record_with_read_uses_clinregs_readers(tmp_path):
    write_csv(tmp_path / "someone__repo", "test.csv", qa_rows("yes"))
    location = locate(record(QA, source=github(commit=None)), tmp_path)
    reader = open_reader(location)
    try:
        assert isinstance(reader, FileSplitReader)
        with pytest.raises(SourceUnavailable, match=r"split 'dev' is not in source.read.splits \(test\)"):
            reader.open("dev", "fixture")
    finally:
        reader.close()


# ----------------------------------------------------------------------------------------------- build through the CLI


def test_cli_build_reports_dropped_rows_and_exits_0(tmp_path):
    read = {"splits": {"test": {"files": "test.csv", "steps": [{"dedupe": {"columns": ["question"]}}]}}}
    mapping = {**QA, "filters": [{"keep": "answer != 'no'", "why": "only yes answers"}]}
    root = write_root(tmp_path, [record_dict(mapping, source=github(read, commit=None))])
    rows = [{"question": "a", "answer": "yes"}, {"question": "a", "answer": "no"}, {"question": "b", "answer": "no"},
            {"question": "c", "answer": "yes"}]
    write_csv(tmp_path / "data" / "someone__repo", "test.csv", rows)
    result = run(build_command, "fixture", "--root", root, "--data-dir", tmp_path / "data")
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["input"] for line in result.stdout.splitlines()] == ["a", "c"]
    assert "fixture/fixture: split 'test': dropped 1 row(s): duplicate question" in result.stderr
    assert "fixture/fixture: split 'test': dropped 1 row(s): only yes answers" in result.stderr


def test_cli_build_read_error_is_one_line_exit_2(tmp_path):
    root = write_root(tmp_path, [record_dict(QA, source=github(commit=None))])
    folder = tmp_path / "data" / "someone__repo"
    folder.mkdir(parents=True)
    (folder / "test.csv").write_text("question,answer\nq,yes,extra\n", encoding="utf-8")
    result = run(build_command, "fixture", "--root", root, "--data-dir", tmp_path / "data")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "fixture: split 'test': test.csv:2: 3 fields where the header has 2" in result.stderr


# ----------------------------------------------------------------------------------------------- gold leak


LONG = "The patient was admitted with chest pain and ruled out for myocardial infarction. " * 6


def test_short_references_are_ignored():
    short = "x" * (MIN_REFERENCE_CHARS - 1)
    assert leaked_span(short, f"before {short} after") is None
    assert leaked_span("x" * MIN_REFERENCE_CHARS, "a " + "x" * MIN_REFERENCE_CHARS) == "x" * MIN_REFERENCE_CHARS


def test_a_short_reference_leaks_only_as_a_whole_copy():
    summary = "Chest pain, ruled out for MI."  # 29 characters: below the span threshold
    assert len(summary) < MIN_REFERENCE_CHARS
    assert leaked_span(summary, summary) == summary  # the whole input
    # a whole line (case, final dot)
    assert leaked_span(summary, "Triage note.\nchest pain, ruled out for MI\nSummarise.")
    assert leaked_span(summary, "Seen at 3 am. Chest pain, ruled out for MI. Discharged home.")  # a whole sentence
    assert leaked_span(summary, "The note says Chest pain, ruled out for MI. and more") is None  # inside a sentence
    # One- and two-word answers leak only as the entire input: "yes" as a line of a note gives nothing away.
    assert leaked_span("yes", "Is the patient febrile?\nyes\nAnswer the question.") is None
    assert leaked_span("Metformin.", "Current meds. Metformin. Lisinopril.") is None
    assert leaked_span("yes", " yes ") == "yes"


def test_gold_in_input_rows_exempts_only_the_listed_rows(tmp_path):
    rows = leak_rows(leaked=2) + [{"note": "note 3 Admitted with pneumonia and treated with intravenous antibiotics "
                                           "for five days",
                                   "summary": "Admitted with pneumonia and treated with intravenous antibiotics for "
                                              "five days"}]
    write_csv(tmp_path / "someone__repo", "test.csv", rows)
    exempt = [{"split": "test", "rows": [2], "why": "The reference is extractive for this note."}]
    with pytest.raises(GoldLeak, match=r"row\(s\) 3: ") as err:
        build(record({**LEAK, "gold_in_input_rows": exempt}, source=github(commit=None)), tmp_path)
    assert "gold_in_input_rows" in str(err.value)
    exempt[0]["rows"] = [2, 3]
    assert len(build(record({**LEAK, "gold_in_input_rows": exempt}, source=github(commit=None)), tmp_path)[0]) == 4
    exempt[0]["split"] = "train"  # rows of another split exempt nothing here
    with pytest.raises(GoldLeak, match=r"row\(s\) 2, 3: "):
        build(record({**LEAK, "gold_in_input_rows": exempt}, source=github(commit=None)), tmp_path)


def test_whitespace_is_folded():
    reference = "Hospital course:\n  admitted for pneumonia,\ttreated with antibiotics."
    assert leaked_span(reference, "note ... Hospital course: admitted for pneumonia, treated  with\nantibiotics. end")
    assert leaked_span(reference, "Hospital course: admitted for pneumonia and treated with antibiotics.") is None


def test_long_reference_leaks_by_a_window():
    assert len(LONG) > 2 * SPAN_CHARS
    middle = LONG[150 : 150 + SPAN_CHARS + 100]
    span = leaked_span(LONG, "Input: " + middle + " (end)")
    assert span is not None and len(span) >= SPAN_CHARS and span in " ".join(LONG.split())
    assert leaked_span(LONG, "Input: " + LONG[:120]) is None


def test_long_reference_tail_counts():
    reference = "A" * 10 + " ".join(f"word{i}" for i in range(80))
    assert leaked_span(reference, "prefix " + reference[-SPAN_CHARS:])


LEAK = {
    "input_template": "Note: {{ note }}",
    "label": {"encoding": "free_text", "column": "summary"},
    "metric": {"name": "jury"},
}


def leak_rows(leaked: int) -> list[dict]:
    summary = "Admitted with pneumonia and treated with intravenous antibiotics for five days"
    return [{"note": f"note {i}" + (f" {summary}" if i == leaked else ""), "summary": f"{summary}"} for i in range(3)]


def test_build_refuses_an_open_ended_instance_whose_reference_is_in_its_input(tmp_path):
    write_csv(tmp_path / "someone__repo", "test.csv", leak_rows(leaked=2))
    with pytest.raises(GoldLeak,
                       match=r"^fixture/fixture: split 'test', row\(s\) 2: the reference answer is in the "
                             r"input") as err:
        build(record(LEAK, source=github(commit=None)), tmp_path)
    assert err.value.exit_code == 1 and str(err.value).endswith("[CLR907]")
    assert (err.value.code, err.value.record, err.value.split, err.value.row) == ("CLR907", "fixture", "test", 2)
    assert "CLR907" not in err.value.message  # the code is data, named only when the line is rendered


def test_gold_in_input_with_a_reason_builds(tmp_path):
    write_csv(tmp_path / "someone__repo", "test.csv", leak_rows(leaked=2))
    rec = record({**LEAK, "gold_in_input": "the task restructures the note itself"}, source=github(commit=None))
    assert len(build(rec, tmp_path)[0]) == 3


def test_closed_tasks_are_exempt(tmp_path):
    rows = [{"question": "Is it yes? yes or no", "answer": "yes"}]
    write_csv(tmp_path / "someone__repo", "test.csv", rows)
    assert len(build(record(QA, source=github(commit=None)), tmp_path)[0]) == 1


def test_cli_build_gold_leak_exits_1(tmp_path):
    root = write_root(tmp_path, [record_dict(LEAK, source=github(commit=None))])
    write_csv(tmp_path / "data" / "someone__repo", "test.csv", leak_rows(leaked=0))
    result = run(build_command, "fixture", "--root", root, "--data-dir", tmp_path / "data")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "row(s) 0" in result.stderr


def test_check_data_reports_clr907_at_the_input_template_line(tmp_path):
    root = write_root(tmp_path, [record_dict(LEAK, source=github(commit=None))])
    write_csv(tmp_path / "data" / "someone__repo", "test.csv", leak_rows(leaked=1))
    result = run(check_data, "fixture", "--root", root, "--data-dir", tmp_path / "data", "--format", "json")
    assert result.exit_code == 1, result.output
    (diag,) = [d for d in json.loads(result.stdout)["data"]["diagnostics"] if d["code"] == "CLR907"]
    text = (root / "registry/datasets/fixture.yaml").read_text().splitlines()
    assert (diag["file"] == "registry/datasets/fixture.yaml"
            and text[diag["line"] - 1].lstrip().startswith("input_template:"))
    assert "split 'test', row(s) 1" in diag["message"]


def test_linked_worktree_at_another_commit_is_refused(tmp_path):
    # `git worktree add` (and a submodule) leaves a `.git` file naming the real git folder, where HEAD lives;
    # its branch refs live in the main repository's git folder (`commondir`).
    main_git = tmp_path / "clones" / "repo" / ".git"
    (main_git / "refs" / "heads").mkdir(parents=True)
    (main_git / "refs" / "heads" / "old").write_text(OTHER + "\n")
    linked = main_git / "worktrees" / "someone__repo"
    linked.mkdir(parents=True)
    (linked / "HEAD").write_text("ref: refs/heads/old\n")
    (linked / "commondir").write_text("../..\n")
    folder = write_csv(tmp_path / "data" / "someone__repo", "test.csv", qa_rows("yes"))
    (folder / ".git").write_text(f"gitdir: {linked}\n")
    assert git_head(folder) == OTHER
    with pytest.raises(SourceUnavailable, match=rf"clone at commit {OTHER[:12]}, but the record pins {COMMIT[:12]}"):
        locate(record(QA, source=github()), tmp_path / "data")
    (linked / "HEAD").write_text(COMMIT + "\n")  # detached at the pinned commit
    assert [i.answer for i in build(record(QA, source=github()), tmp_path / "data")[0]] == ["A"]


def test_any_long_enough_span_of_a_long_reference_leaks():
    # 220 characters starting at 150: no window that starts at a multiple of 100 lies wholly inside it
    reference = " ".join(f"w{i:03d}" for i in range(250))
    leaked = reference[150:370]
    span = leaked_span(reference, "The input quotes: " + leaked + " and goes on.")
    assert span is not None and len(span) >= SPAN_CHARS and span.strip() in leaked
    assert leaked_span(reference, "The input quotes:|" + reference[150:150 + SPAN_CHARS - 1] + "|") is None
    assert leaked_span(reference, "The input quotes:|" + reference[150:150 + SPAN_CHARS] + "|") is not None


def test_check_data_reports_an_unreadable_file_as_clr901(tmp_path):
    root = write_root(tmp_path, [record_dict(QA, source=github(commit=None))])
    folder = tmp_path / "data" / "someone__repo"
    folder.mkdir(parents=True)
    (folder / "test.csv").write_text("question,answer\nq,yes,extra\n", encoding="utf-8")
    result = run(check_data, "fixture", "--root", root, "--data-dir", tmp_path / "data", "--format", "json")
    assert result.exit_code == 1, result.output
    (diag,) = json.loads(result.stdout)["data"]["diagnostics"]
    assert diag["code"] == "CLR901" and diag["file"] == "registry/datasets/fixture.yaml"
    assert "fixture: split 'test': test.csv:2: 3 fields" in diag["message"]


def test_streamed_parquet_split_matches_the_whole_read(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "someone__repo"
    for subset, answers in (("b", ["no", "yes"]), ("a", ["yes"]), ("skip", ["no"])):
        (folder / subset).mkdir(parents=True)
        pq.write_table(pa.table({"question": [f"{subset}{i}" for i in range(len(answers))], "answer": answers}),
                       folder / subset / "test.parquet")
    read = {"splits": {"test": {"files": "{subset}/test.parquet", "where": {"subset": ["a", "b"]}}}}
    rec = record({**QA, "metadata_columns": ["subset"]}, source=github(read, commit=None))
    whole = [(i.input, i.answer, i.context["subset"]) for i in build(rec, tmp_path)[0]]
    streamed = [(i.input, i.answer, i.context["subset"]) for i in build(rec, tmp_path, streaming=True)[0]]
    assert whole == streamed == [("a0", "A", "a"), ("b0", "B", "b"), ("b1", "A", "b")]


def test_streamed_parquet_part_clashing_with_a_column_is_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from clinreg.core.builderrors import RecordProblem

    (tmp_path / "someone__repo" / "a").mkdir(parents=True)
    pq.write_table(pa.table({"question": ["q"], "answer": ["yes"], "subset": ["x"]}),
                   tmp_path / "someone__repo" / "a" / "test.parquet")
    rec = record(QA, source=github({"splits": {"test": {"files": "{subset}/test.parquet"}}}, commit=None))
    for streaming in (False, True):
        with pytest.raises(RecordProblem, match=r"fixture: split 'test': the file pattern's \{subset\} clashes"):
            build(rec, tmp_path, streaming=streaming)


def test_a_keep_step_assigns_train_and_test_from_one_file(tmp_path):
    rows = [{"question": f"q{i}", "answer": a, "split": s}
            for i, (a, s) in enumerate([("yes", "train"), ("no", "test"), ("no", "train"), ("yes", "test")])]
    write_csv(tmp_path / "someone__repo", "all.csv", rows)
    read = {"splits": {"train": {"files": "all.csv", "steps": [{"keep": "split == 'train'"}]},
                       "test": {"files": "all.csv", "steps": [{"keep": "split == 'test'"}]}}}
    source = {**github(read), "paths": ["all.csv"]}
    instances, report = build(record(QA, source=source, splits=["train", "test"]), tmp_path)
    by_split = {s: [(i.context.get("question") or i.input, i.answer) for i in instances if i.split == s]
                for s in ("train", "test")}
    assert by_split == {"train": [("q0", "A"), ("q2", "B")], "test": [("q1", "B"), ("q3", "A")]}
    assert sum(sum(t.dropped.values()) for t in report.tallies) == 0  # the other split's rows are not dropped rows


def test_check_data_reports_a_join_that_does_not_fit_as_clr908_at_the_join(tmp_path):
    read = {"tables": {"answers": {"files": "answers.csv"}},
            "splits": {"test": {"files": "test.csv",
                                "steps": [{"join": {"table": "answers", "keys": ["question"],
                                                    "cardinality": "one_to_one"}}]}}}
    source = {**github(read, commit=None), "paths": ["test.csv", "answers.csv"]}
    root = write_root(tmp_path, [record_dict(QA, source=source)])
    folder = write_csv(tmp_path / "data" / "someone__repo", "test.csv", [{"question": "q0"}, {"question": "q1"}])
    write_csv(folder, "answers.csv", [{"question": "q0", "answer": "yes"}, {"question": "q0", "answer": "no"}])
    result = run(check_data, "fixture", "--root", root, "--data-dir", tmp_path / "data", "--format", "json")
    assert result.exit_code == 1, result.output
    (diag,) = [d for d in json.loads(result.stdout)["data"]["diagnostics"] if d["code"] in ("CLR901", "CLR908")]
    assert diag["code"] == "CLR908" and "has 2 rows for key" in diag["message"]
    text = (root / "registry/datasets/fixture.yaml").read_text().splitlines()
    assert "join" in text[diag["line"] - 1] or "table: answers" in text[diag["line"] - 1]


def _hub_qa(revision: str | None) -> dict:
    return {"type": "huggingface", "repo": "someone/repo", "splits": ["test"], "revision": revision,
            "read": {"splits": {"test": {"files": "test.csv"}}}}


def test_a_hub_clone_at_another_commit_than_the_pinned_revision_is_refused(tmp_path):
    folder = write_csv(tmp_path / "someone__repo", "test.csv", qa_rows("yes"))
    fake_clone(folder, OTHER)
    with pytest.raises(SourceUnavailable, match=rf"clone at commit {OTHER[:12]}, but the record pins {COMMIT[:12]}"):
        locate(record(QA, source=_hub_qa(COMMIT)), tmp_path)
    # A branch name pins no commit: the clone is read, and provenance names the commit it holds.
    assert locate(record(QA, source=_hub_qa("main")), tmp_path).commit_read == OTHER


def test_mirror_provenance_names_the_commit_read_not_the_one_pinned(tmp_path):
    from clinreg.instances.batch import record_provenance
    from clinreg.instances.stamp import build_provenance

    rec = record(QA, source=_hub_qa(COMMIT))
    plain = write_csv(tmp_path / "a" / "someone__repo", "test.csv", qa_rows("yes"))
    base = record_provenance(rec)
    assert base["source"]["revision"] == COMMIT  # what the record alone says
    prov = build_provenance(base, None, locate(rec, tmp_path / "a"))
    assert prov["source"]["kind"] == "mirror" and prov["source"]["revision"] is None  # a plain folder: unknown
    fake_clone(plain, COMMIT)
    prov = build_provenance(base, None, locate(rec, tmp_path / "a"))
    assert prov["source"]["revision"] == COMMIT  # the clone's HEAD, checked against the pin
    named = write_csv(tmp_path / "b" / f"someone__repo@{COMMIT[:12]}", "test.csv", qa_rows("yes"))
    assert locate(rec, tmp_path / "b").folder == named.resolve()
    assert build_provenance(base, None, locate(rec, tmp_path / "b"))["source"]["revision"] == COMMIT
