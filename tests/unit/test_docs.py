"""The docs stay true to the repository: every image and local link of README and docs/ exists; the gallery shows
catalogue outputs, the same list `make gallery` refreshes."""
import re
from pathlib import Path

import pytest

from adaptive_repro import catalogue

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_local_links_and_images_exist(doc):
    missing = []
    for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # URLs and anchors
        path = target.split("#")[0]
        if path.startswith("results/"):
            continue  # produced by a run, not in the repository
        if not (doc.parent / path).exists():
            missing.append(target)
    assert not missing, f"{doc.name} links to files that do not exist: {missing}"


def test_gallery_is_what_make_gallery_writes():
    shown = re.findall(r"!\[[^\]]*\]\(docs/gallery/([a-z0-9-]+)\.png\)", (ROOT / "README.md").read_text())
    assert shown, "README has no gallery"
    make_list = re.search(r"^GALLERY := (.+)$", (ROOT / "Makefile").read_text(), re.M).group(1).split()
    assert shown == make_list
    assert all(oid in catalogue.OUTPUT_IDS for oid in shown)
    assert sorted(p.stem for p in (ROOT / "docs" / "gallery").glob("*.png")) == sorted(shown)
