"""Benchmark the cost of the input-template caps: clinreg's guarded sandbox against jinja's plain immutable sandbox.

Run: uv run python bench/bench_templates.py [--rows 3000] [--no-write]
Writes the results into bench/README.md under `## templates` (other sections are kept).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from clinreg.templating.sandbox import InputTemplate  # noqa: E402

ROW = {f"c{i}": "value " * 5 for i in range(40)}
ROW.update(question="Which drug is first line?", opa="a", opb="b", opc="c", opd="d")
CASES = {
    "the build benchmark's template (plain fields)":
        "{{ question }}\nA. {{ opa }}\nB. {{ opb }}\nC. {{ opc }}\nD. {{ opd }}\nAnswer with the letter of the correct "
        "option.",
    "a loop over a 45-column row": "{% for k, v in row|dictsort %}{{ k }}={{ v }};{% endfor %}",
    "filters, `~` and `+`": "{{ (question ~ ' ' ~ opa) | upper }} {{ [opa, opb, opc] | join(', ') }} "
                            "{{ question | replace('?', '!') }} {{ opa + opb }}",
}


def plain_sandbox(source: str):
    from jinja2 import StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
    template = env.from_string(source)

    def render(variables):  # the same hand-built context as InputTemplate, so that only the caps differ
        context = env.context_class(env, {**template.globals, **variables}, template.name, template.blocks)
        return "".join(template.root_render_func(context))

    return render


def guarded(source: str):
    template = InputTemplate(source, "bench/bench")
    return lambda variables: template.render_with_globals({**template.globals, **variables})


def per_row(render, rows: int, repeat: int) -> float:
    variables = {**ROW, "row": ROW}
    render(variables)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(rows):
            render(variables)
        best = min(best, time.perf_counter() - start)
    return best / rows * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="Print only; leave bench/README.md alone.")
    args = parser.parse_args()
    lines = []
    for name, source in CASES.items():
        plain = guard = float("inf")
        for _ in range(2):  # interleaved: the machine may be shared
            plain = min(plain, per_row(plain_sandbox(source), args.rows, args.repeat))
            guard = min(guard, per_row(guarded(source), args.rows, args.repeat))
        print(f"{name}: jinja sandbox {plain:.1f} us/row, clinreg {guard:.1f} us/row, ratio {guard / plain:.2f}")
        lines.append(f"| {name} | {plain:.1f} µs | {guard:.1f} µs | {guard / plain:.2f} |")
    if args.no_write:
        return
    from clinreg.text.safeio import atomic_write_text

    text = f"""## templates

`uv run python bench/bench_templates.py` ({platform.python_implementation()} {platform.python_version()},
{os.cpu_count()} CPUs). Time to render one row, best of {args.repeat} runs of {args.rows:,} rows, with jinja's plain
immutable sandbox (no caps) as the baseline in the same process. clinreg's sandbox also counts steps (loop items,
calls, lookups, operators), reads the clock every 64 steps, checks the sizes `~`, `+`, `*`, `join`, `replace`
and `indent` would build, and caps buffers and integers (see `src/clinreg/templating/sandbox.py`).

| template | jinja sandbox | clinreg | ratio |
|---|---|---|---|
{chr(10).join(lines)}
"""
    readme = HERE / "README.md"
    current = readme.read_text(encoding="utf-8")
    pattern = re.compile(r"^## templates\n.*?(?=^## |\Z)", re.S | re.M)
    updated = (pattern.sub(lambda _: text + "\n", current) if pattern.search(current)
               else current.rstrip() + "\n\n" + text)
    atomic_write_text(readme, updated.rstrip() + "\n")


if __name__ == "__main__":
    main()
