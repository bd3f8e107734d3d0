"""Issue 39, item 7: `-q` hides progress, never a warning. A build that read its data from somewhere other than
asked (the copy in the hub cache when the hub failed) says so even with -q, for the scripted runs that use it."""

from __future__ import annotations

from clirunner import invoke
from record_fixtures import hub_folder, record_dict, write_root

import clinreg.instances.build as instance_build
from clinreg.cli.build import build

MCQ = {
    "input_template": "{{ question }}",
    "choices": {"columns": ["opa", "opb"]},
    "label": {"encoding": "index", "column": "cop", "base": 0, "count": 2, "unlabeled": -1, "positive": "B"},
}
FALLBACK = "fixture: no network: hub unreachable; read the copy in the hub cache at commit 0123456789ab"


def test_a_location_warning_is_printed_with_quiet(tmp_path, monkeypatch):
    data = tmp_path / "data"
    hub_folder(data, "owner/fixture", {"test": [{"question": f"q{i}", "opa": "x", "opb": "y", "cop": i % 2}
                                                 for i in range(4)]})
    root = write_root(tmp_path, [record_dict(MCQ)])
    real_locate = instance_build.locate

    def falling_back(*args, **kwargs):  # the location the hub module returns when it falls back to its cache
        location = real_locate(*args, **kwargs)
        location.notices.append(FALLBACK)
        return location

    monkeypatch.setattr(instance_build, "locate", falling_back)
    for quiet in (["-q"], []):
        result = invoke(build, ["fixture", "--root", str(root), "--data-dir", str(data), *quiet])
        assert result.exit_code == 0, result.output
        assert f"clinreg: {FALLBACK}\n" in result.stderr, (quiet, result.stderr)
        assert ("built 4 instance(s)" in result.stderr) == (not quiet)  # progress is what -q hides
