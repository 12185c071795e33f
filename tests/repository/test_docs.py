"""The docs stay true to the repository: every image and local link of README and docs/ exists; the gallery shows
catalogue outputs, the same list `make gallery` refreshes."""
import re
from pathlib import Path

import numpy as np
import pytest

from adaptive_repro.pipeline import catalogue

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


def test_every_checked_function_documents_its_domains():
    """The API reference (``make docs``, pdoc) shows each checked argument's domain, from the check itself."""
    from adaptive_repro.bounds import he

    assert "Checked (ValueError otherwise): ``eps`` " in he.kairouz_eps.__doc__


def test_readme_library_example_runs_and_prints_what_it_says():
    import contextlib
    import io
    import re

    text = (ROOT / "README.md").read_text()
    block = text[text.index("## Use as a library"):]
    code = block[block.index("```python") + len("```python"):block.index("```", block.index("```python") + 9)]
    *lines, last = code.strip().splitlines()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec("\n".join(lines), {})
    printed = [float(x) for x in re.findall(r"[-\d.]+(?:e-?\d+)?", out.getvalue())]
    commented = [float(x) for line in lines if "#" in line and "print" in line
                 for x in line.split("#")[1].split()]
    assert np.allclose(printed, commented, rtol=2e-3)
    with pytest.raises(ValueError, match="drv_eps: argument eps = -1.0 is not allowed"):
        exec("\n".join(lines[:3] + [last.split("#")[0]]), {})


def test_the_library_imports_without_the_workflow_packages():
    import subprocess
    import sys

    code = ("import sys; import adaptive_repro.bounds.he, adaptive_repro.bounds.zhao, adaptive_repro.privacy.lemmas, "
            "adaptive_repro.groundtruth, adaptive_repro.simulation.engines, adaptive_repro.simulation.sign_engine; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'matplotlib', 'snakemake', 'yaml', 'jsonschema', "
            "'dp_accounting'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
