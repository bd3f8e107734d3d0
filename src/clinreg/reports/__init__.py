"""What the commands show: the coverage data and its renderers (terminal table, Markdown, CSV, HTML, SVG charts),
the static site, review documents, release diffs (`diff`, on registries `clinreg.core.gitref` opens), the
leaderboard's renderers, the jury agreement report and the text of `clinreg medhelm diff`."""
