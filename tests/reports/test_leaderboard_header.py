"""The leaderboard's header lines are (kind, text) pairs: renderers pick and style lines by kind, not by words."""

from __future__ import annotations

import json

from clinreg.reports import leaderboard
from results.helpers import DATA, ROOT, invoke

BESIDE = [str(DATA / "inspect_mockllm_med_qa.json"), "--with", "medhelm-2025-07-31"]


def _data():
    result = invoke("leaderboard", "--root", ROOT, *BESIDE, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)["data"]
    return {**data, "tables": {"overall": data["rows"]}}  # the renderers' shape: JSON gives the one table as rows


def test_each_header_line_has_a_kind():
    data = _data()
    lines = leaderboard.header_lines(data, "overall")
    kinds = [kind for kind, _ in lines]
    assert kinds[0] == "title" and lines[0][1].startswith("clinreg leaderboard by overall")
    assert ("provenance", data["provenance_note"]) in lines
    from clinreg.reports.contamination import board_line

    contamination = [board_line(data["contamination"])] if data.get("contamination") else []
    assert [text for kind, text in lines if kind == "warning"] == [leaderboard.unvalidated_line(data),
                                                                   leaderboard.comparability_line(data),
                                                                   *contamination]
    assert set(kinds) <= {"title", "note", "provenance", "warning"}


def test_markdown_quotes_the_warnings_whatever_their_words(monkeypatch):
    data = _data()
    monkeypatch.setattr(leaderboard, "comparability_line", lambda data: "Scores on one benchmark differ in harness.")
    markdown = leaderboard.render_markdown(data, "overall")
    assert "> Scores on one benchmark differ in harness." in markdown.splitlines()
