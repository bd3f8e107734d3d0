"""Fail (exit 1) when a page of a built clinreg site links to a file or an anchor that is not there.

Usage: python .ci/check_site_links.py SITE_DIR. Standard library only; links to other sites are not followed.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key) is not None and (tag in ("a", "link", "script", "img")):
                self.links.append(a[key])


def broken_links(site: Path) -> tuple[list[str], int]:
    pages: dict[str, Page] = {}
    for path in sorted(site.glob("*.html")):
        parser = Page()
        parser.feed(path.read_text(encoding="utf-8"))
        pages[path.name] = parser
    broken, checked = [], 0
    for name, page in pages.items():
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                if parts.scheme not in ("https", "mailto"):
                    broken.append(f"{name}: {link} (only https links leave the site)")
                continue
            checked += 1
            target = unquote(parts.path) or name
            if "/" in target or not (site / target).is_file():
                broken.append(f"{name}: {link} (no file {target})")
            elif parts.fragment and target.endswith(".html") and unquote(parts.fragment) not in pages[target].ids:
                broken.append(f"{name}: {link} (no id {parts.fragment} in {target})")
    return broken, checked


if __name__ == "__main__":
    site = Path(sys.argv[1])
    broken, checked = broken_links(site)
    for line in broken:
        print(f"broken link: {line}", file=sys.stderr)
    print(f"{checked} internal links checked in {len(list(site.glob('*.html')))} pages, {len(broken)} broken")
    sys.exit(1 if broken or checked == 0 else 0)
