"""The registry's releases (`registry/releases.yaml`)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from clinreg.core.model.base import Id, NonEmpty, Strict


class Release(Strict):
    version: str = Field(description="Semantic version of the release.")
    date: dt.date = Field(
        description="Release date (YYYY-MM-DD). For an open release, the day it was opened: set the day it is "
                    "published."
    )
    title: NonEmpty = Field(description="One line on what the release is.")
    status: Literal["published", "open"] = Field(
        "published",
        description=(
            "`published` (the default): the release is out, and what it holds never changes (CLR604). `open`: the "
            "release being prepared, which new records name in `added_in`; only the newest release may be open. "
            "`clinreg new release X.Y.Z --title ...` opens one. To publish it, set `status: published`, its date, "
            "and `datasets_added`."
        ),
    )
    datasets_added: list[Id] | None = Field(
        None,
        description=(
            "For a published release: the ids of the records it added (every record whose `added_in` is this "
            "release), `[]` when it added none. Written once, when the release is published; it fixes what the "
            "release holds, so that a later record cannot name it in `added_in` (CLR604). An open release leaves it "
            "out."
        ),
    )
    notes: str | None = Field(None, description="Longer notes, e.g. the upstream change the release follows.")


class ReleaseHistory(Strict):
    current: str = Field(description="The version of the registry as it stands in this tree: the newest release, open "
                                     "or published.")
    releases: list[Release] = Field(min_length=1, description="Every release, oldest first.")
