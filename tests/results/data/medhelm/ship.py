"""Write the shipped published results (src/clinreg/results/published/<id>.json) from the CSVs in this folder.

    uv run python tests/results/data/medhelm/ship.py          # rewrites the shipped files
    uv run python tests/results/data/medhelm/ship.py --check  # exit 1 when a shipped file's scores differ

Each file is `clinreg results import` of the release's leaderboard.csv, with the file named by its source
(repository@commit:path) instead of this folder, and a `published` block: id, date, source (with the SHA-256 of
the CSV's text), edition.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from clirunner import invoke

from clinreg.cli.main import main
from clinreg.core.paths import embedded_root
from clinreg.results.importing import results_text
from clinreg.results.published import RELEASES, text_sha256
from clinreg.results.strictinput import read_text

HERE = Path(__file__).parent
SHIPPED = Path(__file__).resolve().parents[4] / "src" / "clinreg" / "results" / "published"


def shipped_document(release: dict) -> dict:
    csv = HERE / release["date"] / "leaderboard.csv"
    result = invoke(main, ["results", "import", "--root", str(embedded_root()), str(csv)])
    if result.exit_code != 0:
        raise SystemExit(result.output)
    document = json.loads(result.stdout)
    source = dict(release["source"], sha256=text_sha256(read_text(csv)))
    named = f"{source['repository']}@{source['commit']}:{source['file']}"
    published = {k: v for k, v in release.items() if k != "source"} | {"source": source}
    provenance = {"harness": "helm", "published": {"id": release["id"], "date": release["date"], "source": named}}
    if release["edition"]:
        provenance["edition"] = release["edition"]
    for entry in document["scores"]:
        entry["source"] = {**entry["source"], "file": named}
        entry["provenance"] = provenance
    for entry in document["reported_win_rates"]:
        entry["source"] = {**entry["source"], "file": named, "published": release["id"]}
    return {"clinreg_results": document.pop("clinreg_results"), "published": published, **document}


def main_(check: bool) -> int:
    bad = 0
    for release in RELEASES:
        text = results_text(shipped_document(release))
        target = SHIPPED / f"{release['id']}.json"
        if check:
            old = json.loads(target.read_text(encoding="utf-8")) if target.exists() else {}
            new = json.loads(text)
            if {k: v for k, v in old.items() if k != "registry"} != {k: v for k, v in new.items() if k != "registry"}:
                print(f"{target} is out of date", file=sys.stderr)
                bad = 1
        else:
            target.write_text(text + "\n", encoding="utf-8")
            print(target)
    return bad


if __name__ == "__main__":
    raise SystemExit(main_("--check" in sys.argv[1:]))
