"""The front door and the documentation index: the README stays short, docs/README.md lists every
page, and every relative link in the Markdown files points at a file that exists."""

import pathlib
import re

import pytest
from support.paths import ROOT as ROOT_DIR

pytestmark = pytest.mark.tooling

ROOT = pathlib.Path(ROOT_DIR)
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
CODE = re.compile(r"`[^`]*`")


def links(page: pathlib.Path) -> list[str]:
    """The link targets of a Markdown page, outside code spans."""
    return LINK.findall(CODE.sub("", page.read_text(encoding="utf-8")))


def test_the_readme_is_a_front_door():
    assert (ROOT / "README.md").stat().st_size <= 8 * 1024
    for page in ("LICENSE", "CONTRIBUTING.md"):
        assert (ROOT / page).is_file(), page


def test_the_docs_index_lists_every_page():
    listed = set(links(DOCS / "README.md"))
    pages = {p.name for p in DOCS.glob("*.md") if p.name != "README.md"}
    assert pages - listed == set(), "pages missing from docs/README.md"


@pytest.mark.parametrize(
    "page",
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted(DOCS.glob("*.md"))],
    ids=lambda p: p.name,
)
def test_relative_links_resolve(page):
    broken = [
        target
        for target in links(page)
        if "://" not in target and not (page.parent / target).exists()
    ]
    assert broken == []
