"""`results import` and `leaderboard` stay on the light path: no datasets, pandas or pyarrow."""

from __future__ import annotations

import subprocess
import sys

from results.helpers import BOARD, DATA, ROOT, needs_zstandard, write


def test_results_commands_do_not_import_heavy_libraries(tmp_path):
    needs_zstandard()  # the import reads a Zstandard-compressed .eval log
    board = write(tmp_path / "board.csv", BOARD)
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from clinreg.cli.main import main\n"
        f"root, board, log = {str(ROOT)!r}, {str(board)!r}, {str(DATA / 'inspect_mockllm_med_qa.eval')!r}\n"
        "for args in (['results', 'import', '--root', root, board, log],\n"
        "             ['leaderboard', '--root', root, board, '--format', 'html', '--by', 'subcategory']):\n"
        "    assert CliRunner().invoke(main, args).exit_code == 0\n"
        "heavy = sorted(m for m in ('datasets', 'pandas', 'pyarrow') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert out.stdout.strip() == ""
