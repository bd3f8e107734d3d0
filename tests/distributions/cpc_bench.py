"""As-distributed fixture for `cpc_bench`: none can be written, because no copy of the data was found.

SHAPE: unknown. The paper (arXiv 2509.12194) says CPC-Bench (7,102 NEJM clinicopathological conferences and
1,021 image challenges) is released, but no repository, hub dataset or data page was found, so its files, format
and row fields are unknown. This writer lays out nothing and says why; inventing a layout would make the test
check the record against itself.
"""
import pathlib

FILLED_IN = True


def write(folder: pathlib.Path) -> dict:
    return {"unbuildable": "no release of the data was found, so its file layout and fields are unknown"}
