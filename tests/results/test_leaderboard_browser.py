"""The HTML leaderboard in headless Chromium: drawn, no console errors, the JSON's numbers, no overflow on a phone."""

from __future__ import annotations

import json

import pytest

from reports.helpers import console_problems, data_attributes, run_chromium
from reports.png import grey_variance
from results.helpers import BOARD, ROOT, invoke, write

pytestmark = pytest.mark.browser

ATTACK = "<script>document.documentElement.setAttribute('data-pwned','yes')</script>"



def page(tmp_path, board_text=BOARD):
    board = write(tmp_path / "board.csv", board_text)
    out = tmp_path / "leaderboard.html"
    result = invoke("leaderboard", "--root", ROOT, board, "--format", "html", "-o", out)
    assert result.exit_code == 0, result.output
    return board, out


@pytest.mark.slow
def test_page_is_drawn_without_console_errors(chromium, tmp_path):
    _, html = page(tmp_path)
    shot = tmp_path / "shot.png"
    _, err = run_chromium(chromium, html, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,1600")
    assert console_problems(err) == []
    assert grey_variance(shot) > 200, "the screenshot looks blank"


def test_dom_numbers_equal_the_json(chromium, tmp_path):
    board, html = page(tmp_path)
    data = json.loads(invoke("leaderboard", "--root", ROOT, board, "--format", "json", "--by",
                             "subcategory").stdout)["data"]
    dom, err = run_chromium(chromium, html, tmp_path / "profile", "--dump-dom")
    assert console_problems(err) == []
    overall = data_attributes(dom, "data-overall")
    assert {m: float(a["mwr"]) for m, a in overall.items()} == pytest.approx({"A": 7 / 9, "B": 4 / 9, "C": 5 / 12,
                                                                             "D": 1 / 3})
    heat = data_attributes(dom, "data-heat-model")
    assert set(heat) == {"A", "B", "C", "D"}
    thin_cells = dom.count('data-thin="yes"')
    assert thin_cells == sum(1 for r in data["rows"]
                             if r["thin"]) + sum(1 for m in overall if overall[m]["thin"] == "yes")


def test_model_names_are_escaped(chromium, tmp_path):
    _, html = page(tmp_path, f"Model,MedQA - EM\n\"{ATTACK}\",0.5\nB,0.4\n")
    dom, err = run_chromium(chromium, html, tmp_path / "profile", "--dump-dom")
    assert console_problems(err) == []
    assert "data-pwned" not in dom.split("<body")[0]
    assert "<script" not in dom


def test_no_horizontal_overflow_on_a_phone(chromium, tmp_path):
    """On a phone-sized window the wide tables scroll inside their cards; the page itself does not scroll sideways.

    Chromium asks for 390 px, but headless Chromium does not make a window narrower than 500 px, so the check
    runs at its narrowest real width (the probe reports it).
    """
    _, html = page(tmp_path)
    probe = tmp_path / "probe.html"
    probe.write_text(html.read_text(encoding="utf-8").replace(
        "</body>", "<script>document.title = 'W' + document.documentElement.scrollWidth + '/' + "
                   "document.documentElement.clientWidth;</script></body>"), encoding="utf-8")
    dom, err = run_chromium(chromium, probe, tmp_path / "profile", "--dump-dom", "--window-size=390,844")
    assert console_problems(err) == []
    title = dom.split("<title>")[1].split("</title>")[0]
    scroll, client = (int(x) for x in title[1:].split("/"))
    assert scroll <= client, title


BEHIND = """(() => {
  const t = document.querySelector('#overall table');
  const heads = Array.from(t.querySelectorAll('thead th')).map(th => th.textContent.trim());
  const b = heads.indexOf('Behind the number'), m = heads.indexOf('Missing');
  return Array.from(t.querySelectorAll('tbody tr')).map(tr => {
    const range = document.createRange();
    range.selectNodeContents(tr.children[b]);
    const tops = Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => r.top + r.height / 2).sort((x, \
y) => x - y);
    let lines = 0, last = -1e9;  // rects whose middles lie within 8 px sit on one line (badges are taller than text)
    for (const y of tops) { if (y - last > 8) { lines += 1; last = y; } }
    return {lines, missing: tr.children[m].textContent.trim(), behind_px: tr.children[b].getBoundingClientRect().width,
            missing_px: tr.children[m].getBoundingClientRect().width};
  });
})()"""


@pytest.mark.slow
@pytest.mark.parametrize("width", [1024, 1280])
def test_behind_the_number_keeps_to_two_lines_and_an_empty_missing_column_stays_narrow(chromium, tmp_path, width):
    """Beside a published release (most of its benchmarks missing for the example's models) at a laptop's width,
    the evidence behind each number reads in at most two lines and the Missing column folds its list into a count."""
    from reports.cdp import Browser

    board = write(tmp_path / "board.csv", BOARD)
    html = tmp_path / "leaderboard.html"
    result = invoke("leaderboard", "--root", ROOT, board, "--with", "medhelm-2025-07-31", "--format", "html", "-o",
                    html)
    assert result.exit_code == 0, result.output
    with Browser(chromium, tmp_path / "profile") as browser:
        browser.open(html.resolve().as_uri(), width)
        rows = browser.eval(BEHIND)
        assert browser.console_problems() == []
    assert len(rows) > 4 and any(r["missing"] == "" for r in rows) and any("benchmarks" in r["missing"] for r in rows)
    assert max(r["lines"] for r in rows) <= 2, rows
    assert all(r["missing_px"] < r["behind_px"] / 2 for r in rows), rows
