"""The reader's resource limits sit exactly where SECURITY.md says, hostile inputs stop fast, and CRLF, a BOM
or a tab never moves a reported location."""

from __future__ import annotations

import os

import pytest

from clinreg.core.yamlsrc import DEFAULT_LIMITS, Limits, is_yaml11_trap, parse_yaml, read_yaml_file
from trees import GOOD_TREE, write_tree

from .support import CORPUS, assert_no_traceback, run_cli

MiB = 1024 * 1024


def codes(raw: bytes, limits: Limits = DEFAULT_LIMITS) -> list[str]:
    return [p.code for p in parse_yaml(raw, limits).problems]




def test_documented_limits():
    assert (DEFAULT_LIMITS.max_bytes, DEFAULT_LIMITS.max_depth, DEFAULT_LIMITS.max_aliases, DEFAULT_LIMITS.max_nodes,
            DEFAULT_LIMITS.max_number_chars) == (MiB, 40, 16, 200_000, 1000)


def test_size_limit_boundary(tmp_path):
    body = b"a: 1\n# "
    exact = body + b"x" * (MiB - len(body) - 1) + b"\n"
    assert len(exact) == MiB
    assert codes(exact) == []
    assert codes(exact + b"\n") == ["CLR007"]
    big = tmp_path / "big.yaml"
    big.write_bytes(exact + b"\n")
    (problem,) = read_yaml_file(big).problems
    assert (problem.code, problem.line, problem.column) == ("CLR007", 1, 1)


def _nested(depth: int, flow: bool) -> bytes:
    # `depth` containers in all, the root mapping included.
    if flow:
        return b"a: " + b"[" * (depth - 1) + b"]" * (depth - 1) + b"\n"
    lines = ["a:"] + ["  " * i + "-" for i in range(1, depth)]
    return ("\n".join(lines) + " x\n").encode()


@pytest.mark.parametrize("flow", [True, False])
def test_depth_limit_boundary(flow):
    assert codes(_nested(40, flow)) == []
    assert codes(_nested(41, flow)) == ["CLR007"]


def _aliases(n: int) -> bytes:
    return b"a: &x [1]\nb: [" + b", ".join([b"*x"] * n) + b"]\n"


def test_alias_limit_boundary():
    assert codes(_aliases(16)) == []
    assert codes(_aliases(17)) == ["CLR007"]


@pytest.mark.slow
def test_node_limit_boundary():
    # the root list counts as one value
    assert codes(b"[" + b"1," * (DEFAULT_LIMITS.max_nodes - 1) + b"]") == []
    assert codes(b"[" + b"1," * DEFAULT_LIMITS.max_nodes + b"]") == ["CLR007"]


def test_number_length_boundary():
    assert codes(b"a: 1" + b"0" * 999 + b"\n") == []
    assert codes(b"a: 1" + b"0" * 1000 + b"\n") == ["CLR007"]
    assert codes(b"a: '1" + b"0" * 5000 + b"'\n") == []  # quoted, it is text


def _laughs(levels: int, width: int) -> bytes:
    out = b"l0: &l0 [" + b", ".join([b"lol"] * width) + b"]\n"
    for i in range(1, levels):
        out += f"l{i}: &l{i} [".encode() + b", ".join([f"*l{i - 1}".encode()] * width) + b"]\n"
    return out


@pytest.mark.parametrize(
    "raw, limits",
    [
        (_laughs(10, 9), DEFAULT_LIMITS),  # billion laughs: stopped by the alias count
        (_laughs(10, 9), Limits(max_aliases=10**9)),  # with no alias limit, the expansion budget stops it
        (b"a: &a [" + b", ".join([b"x"] * 15_000) + b"]\nb: [" + b", ".join([b"*a"] * 16) + b"]\n", DEFAULT_LIMITS),
        ((CORPUS / "alias-bomb-wide.yaml").read_bytes(), DEFAULT_LIMITS),
    ],
    ids=["billion-laughs", "billion-laughs-no-alias-limit", "wide-16-aliases", "corpus-wide"],
)
def test_alias_bombs_are_rejected_fast(raw, limits):
    doc = parse_yaml(raw, limits)
    assert [p.code for p in doc.problems] == ["CLR007"]  # the bound that fired (times: bench/bench_hostile.py)


@pytest.mark.parametrize(
    "raw",
    [
        b"a: " + b"[" * 100_000 + b"]" * 100_000,
        b"a: " + b"{b: " * 50_000 + b"}" * 50_000,
        b"a:\n" + b"".join(b" " * i + b"- \n" for i in range(1, 1500)),
        b"a: 1" + b"_1" * 500_000 + b".5",
        b"a: 1" + b":1" * 500_000,
        b"a: 0x" + b"f" * 1_000_000,
    ],
    ids=["flow-lists", "flow-maps", "block-lists", "underscored-float", "sexagesimal", "long-hex"],
)
def test_hostile_shapes_are_rejected_fast(raw):
    doc = parse_yaml(raw[: MiB])
    assert doc.problems and doc.problems[0].code in ("CLR001", "CLR007")


def test_yaml11_trap_check_is_linear():
    # The regex once backtracked quadratically: 60 KB took 10 s, 1 MiB would take most of an hour.
    # The time is measured in bench/bench_hostile.py (case yaml11-trap); here, that 1 MiB gives the right answer.
    assert is_yaml11_trap("1" + "_1" * 500_000 + ".5", 1.5) is False


def _locations(raw: bytes):
    doc = parse_yaml(raw)
    assert doc.problems == []
    return doc.values, doc.keys


@pytest.mark.parametrize("rel", sorted(GOOD_TREE))
def test_crlf_and_bom_keep_every_location(rel):
    lf = GOOD_TREE[rel].encode()
    expected = _locations(lf)
    assert _locations(lf.replace(b"\n", b"\r\n")) == expected
    assert _locations(b"\xef\xbb\xbf" + lf) == expected
    assert _locations(b"\xef\xbb\xbf" + lf.replace(b"\n", b"\r\n")) == expected


def test_a_fifo_in_the_tree_does_not_hang_validate(tmp_path):
    if not hasattr(os, "mkfifo"):  # pragma: no cover
        pytest.skip("no FIFOs here")
    root = write_tree(tmp_path / "reg")
    os.mkfifo(root / "registry" / "datasets" / "pipe.yaml")
    result = run_cli("validate", "--root", str(root), "--format", "json", timeout=60)
    assert_no_traceback(result)
    assert result.returncode == 1
    assert '"code": "CLR009"' in result.stdout and "pipe.yaml" in result.stdout
