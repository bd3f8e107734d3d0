"""Wave 5, class 1: `clinreg medhelm diff` reads MedHELM's files (a wheel or a source tree anyone can hand it) as
untrusted. A hostile schema, conf, run-spec file, wheel member or link ends in a located error and exit 2, within
the time and memory limits; a long adversarial line is read in one pass and gives the right answer.

Most hostile inputs stop at the schema, the first file read, so they need no real MedHELM files. The tests that
need a schema that reads (to reach the confs and the judges) copy the real medhelm 0.8.0 wheel's files and skip
where it is absent, as tests/medhelm/test_diff.py does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import sys
import zlib
from pathlib import Path

import pytest
from clirunner import invoke
from medhelm_wheel import medhelm_wheel, unpack_medhelm_files

from clinreg.cli.main import main
from clinreg.medhelm import files as medhelm_files

from .support import assert_no_traceback, run_cli

REPO = Path(__file__).resolve().parents[2]
SCHEMA = "helm/benchmark/static/schema_medhelm.yaml"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _diff(source: Path | str, *extra: str):
    return invoke(main, ["medhelm", "diff", str(source), "--edition", "medhelm-0.8.0", "--root", str(REPO), *extra])


def _refused(result, *words: str) -> str:
    """The one-line error of a refused source: exit 2, no traceback, naming each of `words`."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    for word in words:
        assert word in result.output, result.output
    return result.output


def _tree(tmp_path: Path, schema: str | bytes | None = None) -> Path:
    """A source tree holding only a schema with the given text."""
    root = tmp_path / "tree"
    (root / SCHEMA).parent.mkdir(parents=True)
    if schema is not None:
        data = schema.encode("utf-8") if isinstance(schema, str) else schema
        (root / SCHEMA).write_bytes(data)
    return root


@pytest.fixture(scope="module")
def wheel() -> Path:
    return medhelm_wheel()


@pytest.fixture
def unpacked(wheel: Path, tmp_path: Path) -> Path:
    return unpack_medhelm_files(wheel, tmp_path / "medhelm")


# --------------------------------------------------------------------------------------------- the schema's YAML


@pytest.mark.parametrize("shape", ["flow", "block"])
def test_a_deeply_nested_schema_is_a_located_error(tmp_path, shape):
    depth = 5000 if shape == "flow" else 1000  # the pure-Python loader ran out of stack (a RecursionError)
    if shape == "flow":
        text = "run_groups: " + "[" * depth + "]" * depth + "\n"
    else:
        text = "run_groups:\n" + "".join(" " * i + "- \n" for i in range(depth))
    output = _refused(_diff(_tree(tmp_path, text)), "schema_medhelm.yaml:", "nesting deeper")
    line = int(re.search(r"schema_medhelm\.yaml:(\d+):\d+:", output).group(1))
    assert line == (1 if shape == "flow" else 41)  # where the nesting passes the limit of 40 levels


def test_a_billion_laughs_schema_is_refused(tmp_path):
    # The billion laughs: nine levels of nine aliases each; expanded it would be 9**9 strings.
    lines = ['a0: &a0 "lol"']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    lines += ["run_groups:", "  - name: cats", "    category: Healthcare Task Categories", "    display_name: *a9",
              "    subgroups: [x]"]
    _refused(_diff(_tree(tmp_path, "\n".join(lines) + "\n")), "schema_medhelm.yaml:", "alias")


def test_a_few_aliases_that_expand_to_gigabytes_are_refused(tmp_path):
    # 32 aliases in all, under any count limit: a 1 MB string, eight times, eight times, eight times, eight times,
    # is 4 GB once the display name is turned into a string.
    lines = [f'big: &s "{"x" * (1 << 20)}"', "l1: &l1 [" + ", ".join(["*s"] * 8) + "]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 8) + "]" for i in range(2, 5)]
    lines += ["run_groups:", "  - name: cats", "    category: Healthcare Task Categories", "    display_name: *l4",
              "    subgroups: [x]"]
    _refused(_diff(_tree(tmp_path, "\n".join(lines) + "\n")), "schema_medhelm.yaml", "aliases expand")


def test_a_schema_near_the_cap_is_refused_or_read_quickly(tmp_path):
    cap = medhelm_files.YAML_LIMITS.max_bytes
    # Just under the cap, hundreds of thousands of values: the reader stops at its value budget, located.
    item = "- a\n"
    many = "run_groups:\n" + item * ((cap - 20) // len(item))
    assert len(many) <= cap
    _refused(_diff(_tree(tmp_path, many)), "schema_medhelm.yaml:", "values")
    # Just under the cap, few values: read whole, and found not to be MedHELM's schema.
    few = 'run_groups: []\nnote: "' + "x" * (cap - 40) + '"\n'
    assert len(few) <= cap
    _refused(_diff(_tree(tmp_path / "few", few)), "Healthcare Task Categories")
    # Over the cap: refused before it is parsed.
    _refused(_diff(_tree(tmp_path / "over", few + "x" * 64)), "schema_medhelm.yaml", "larger than")


# --------------------------------------------------------------------------------------------- confs and run specs


def test_conf_headers_are_read_in_one_pass_on_long_adversarial_lines():
    n = 100_000  # the old header patterns backtracked cubically: 36 s on a line of 2,000 characters
    assert medhelm_files.category_header("#" * n + "x") is None
    assert medhelm_files.category_header("#" * 5 + " " * n + "x") is None
    assert medhelm_files.category_header("##### " + " " * n + "Clinical Decision Support" + " " * n + " #####") == (
        "Clinical Decision Support")
    assert medhelm_files.sub_header("###" + " " * n + "x") is None
    assert medhelm_files.sub_header("### " + "a " * n + "###") == ("a " * n).strip()
    assert medhelm_files.sub_header("### Supporting Diagnostic Decisions ###") == "Supporting Diagnostic Decisions"
    assert medhelm_files.category_header("### Supporting Diagnostic Decisions ###") is None


def test_run_spec_groups_are_read_in_one_pass_on_adversarial_source():
    n = 100_000  # `groups=[` without a `]`, over and over: the old pattern scanned to the end from each (quadratic)
    unclosed = '@run_spec_function("medhelm_x")\ndef f():\n    ' + "groups=[" * n + "\n"
    assert medhelm_files._spec_groups(unclosed, {"med_qa"}) == {}
    near_misses = '@run_spec_function("medhelm_x")\n' + "groups = " * n + 'groups = ["other", "med_qa"]\n'
    assert medhelm_files._spec_groups(near_misses, {"med_qa"}) == {"medhelm_x": "med_qa"}


def test_long_adversarial_conf_lines_give_the_real_subcategories(unpacked):
    conf = next((unpacked / "helm/benchmark/presentation").glob("run_entries_medhelm_public.conf"))
    clean = json.loads(_diff(unpacked, "--format", "json").output)["data"]
    n = 200_000
    hostile = ["#" * n + "x", "#####" + " " * n + "x", "###" + " " * n + "x", "### " + "#" * n]
    conf.write_text("\n".join(hostile) + "\n" + conf.read_text(encoding="utf-8"), encoding="utf-8")
    specs = unpacked / "helm/benchmark/run_specs/medhelm_run_specs.py"
    specs.write_text(specs.read_text(encoding="utf-8") + "\n# " + "groups=[" * n + "\n", encoding="utf-8")
    result = _diff(unpacked, "--format", "json")
    assert result.exit_code in (0, 1), result.output
    data = json.loads(result.output)["data"]
    shift = len(hostile)

    def moved(where: str) -> str:  # the conf lines moved down by the hostile lines
        name, _, line = where.rpartition(":")
        return f"{name}:{int(line) + shift}" if name.endswith("public.conf") else where

    expected = [dict(d, where=moved(d["where"])) if isinstance(d.get("where"), str) else d
                for d in clean["differences"]]
    assert data["differences"] == expected


# --------------------------------------------------------------------------------------------- wheels


def _zip_with_understated_member(path: Path, name: str, deflated: bytes, declared: int) -> None:
    """A zip whose one member's headers (local and central) say `declared` bytes for deflate data far larger."""
    encoded = name.encode()
    crc = 0  # never reached: the bytes are refused before the CRC is checked
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 0x21, crc, len(deflated), declared,
                        len(encoded), 0) + encoded
    central = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 0x21, crc, len(deflated), declared,
                          len(encoded), 0, 0, 0, 0, 0, 0) + encoded
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1, 1, len(central), len(local) + len(deflated), 0)
    path.write_bytes(local + deflated + central + end)


def _deflated_zeros(mib: int) -> bytes:
    """A raw deflate stream of `mib` MiB of zeros, built from one flushed block repeated (about 1 KB per MiB)."""
    block_maker = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = block_maker.compress(bytes(1 << 20)) + block_maker.flush(zlib.Z_FULL_FLUSH)
    return block * mib + zlib.compressobj(9, zlib.DEFLATED, -15).flush()


@pytest.mark.skipif(sys.platform == "win32", reason="the memory limit is set with resource.setrlimit")
def test_a_wheel_member_that_understates_its_size_is_never_inflated(tmp_path):
    import resource

    deflated = _deflated_zeros(3 * 1024)  # 3 GiB unpacked, in about 3 MB
    assert zlib.decompressobj(-15).decompress(deflated, 1 << 20) == bytes(1 << 20)
    bomb = tmp_path / "medhelm-9.9.9-py3-none-any.whl"
    _zip_with_understated_member(bomb, SCHEMA, deflated, declared=1000)

    def limit_memory() -> None:  # far under what unpacking the member would take
        resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))

    result = run_cli("medhelm", "diff", str(bomb), "--root", str(REPO), preexec_fn=limit_memory, timeout=120)
    assert_no_traceback(result)
    assert result.returncode == 2, result.stderr
    assert "schema_medhelm.yaml" in result.stderr and "MemoryError" not in result.stderr


@needs_fifo
@pytest.mark.parametrize("what", ["fifo", "device", "folder-link"])
def test_a_source_that_is_no_file_or_folder_is_refused(tmp_path, what):
    source = tmp_path / "medhelm.whl"
    if what == "fifo":
        os.mkfifo(source)
    elif what == "device":
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero here")
        source.symlink_to("/dev/zero")
    else:
        source.symlink_to(tmp_path / "nowhere")
    output = _refused(_diff(source), str(source))
    assert ("not a regular file" in output) if what != "folder-link" else ("no such file" in output)


# --------------------------------------------------------------------------------------------- links in a tree


@needs_fifo
@pytest.mark.parametrize("what", ["outside", "device", "fifo", "fifo-link"])
def test_a_schema_that_is_no_regular_file_inside_the_tree_is_refused(tmp_path, what):
    root = _tree(tmp_path)
    schema = root / SCHEMA
    if what == "outside":
        secret = tmp_path / "elsewhere.yaml"
        secret.write_text("run_groups: []\n", encoding="utf-8")
        schema.symlink_to(secret)
        _refused(_diff(root), "schema_medhelm.yaml", "outside")
        return
    if what == "device":  # a device is never inside a source tree: refused as a link out of it
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero here")
        schema.symlink_to("/dev/zero")
        _refused(_diff(root), "schema_medhelm.yaml", "/dev/zero", "outside")
        return
    if what == "fifo":
        os.mkfifo(schema)
    else:
        os.mkfifo(root / "pipe")
        schema.symlink_to(root / "pipe")
    _refused(_diff(root), "schema_medhelm.yaml", "not a regular file")


@needs_fifo
@pytest.mark.parametrize("file", ["helm/benchmark/scenarios/medhelm/judges.yaml",
                                  "helm/benchmark/presentation/run_entries_medhelm_public.conf",
                                  "helm/benchmark/run_specs/medhelm_run_specs.py"])
def test_a_fifo_or_a_link_out_among_medhelms_other_files_is_refused(unpacked, tmp_path, file):
    target = unpacked / file
    target.unlink()
    os.mkfifo(target)
    _refused(_diff(unpacked), Path(file).name, "not a regular file")
    target.unlink()
    outside = tmp_path / "outside.txt"
    outside.write_text("judges: []\n", encoding="utf-8")
    target.symlink_to(outside)
    _refused(_diff(unpacked), Path(file).name, "outside")


def test_a_link_that_stays_inside_the_tree_is_read(unpacked):
    schema = unpacked / SCHEMA
    kept = unpacked / "helm" / "schema_copy.yaml"
    shutil.move(schema, kept)
    schema.symlink_to(kept)
    assert _diff(unpacked).exit_code in (0, 1)


@needs_fifo
def test_installed_reads_the_same_way(tmp_path, monkeypatch):
    """--installed (and --env/--python, which find the package the same way) read the helm package found under the
    same rules: only regular files inside that package."""
    import importlib.util
    from types import SimpleNamespace

    package = tmp_path / "site-packages" / "helm"
    (package / "benchmark" / "static").mkdir(parents=True)
    secret = tmp_path / "elsewhere.yaml"
    secret.write_text("run_groups: []\n", encoding="utf-8")
    (package / "benchmark" / "static" / "schema_medhelm.yaml").symlink_to(secret)
    found = SimpleNamespace(submodule_search_locations=[str(package)])
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: found if name == "helm" else None)
    with pytest.raises(medhelm_files.SourceError, match="outside"):
        medhelm_files.read_medhelm(medhelm_files.open_source(None, installed=True))
    (package / "benchmark" / "static" / "schema_medhelm.yaml").unlink()
    os.mkfifo(package / "benchmark" / "static" / "schema_medhelm.yaml")
    with pytest.raises(medhelm_files.SourceError, match="not a regular file"):
        medhelm_files.read_medhelm(medhelm_files.open_source(None, installed=True))
