"""The catalogue is the one list of outputs, and the package's layers have no upward imports."""
import pytest

from adaptive_repro.pipeline import catalogue, sources
from adaptive_repro.pipeline.validation import config_schema

LOWER_LAYERS = ("bounds", "privacy", "simulation", "groundtruth", "stats", "decisions", "foundation")


def package_modules():
    for path in sorted(sources.ROOT.rglob("*.py")):
        rel = path.relative_to(sources.ROOT).with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"]
        yield ".".join([sources.PACKAGE, *parts]), path


@pytest.mark.parametrize("name", [n for n, _ in package_modules() if n.count(".") and n.split(".")[1] in LOWER_LAYERS])
def test_math_and_simulation_never_import_outputs(name):
    """Transitively, function-level imports included (sources.module_sources parses every import statement)."""
    upward = [p for p in sources.module_sources(name) if "/outputs/" in p.replace("\\", "/")]
    assert not upward, f"{name} imports the output layer: {upward}"


@pytest.mark.parametrize("name", [n for n, _ in package_modules() if n.startswith("adaptive_repro.foundation.")])
def test_the_foundation_imports_nothing_above_it(name):
    above = [p for p in sources.module_sources(name) if "/foundation/" not in p.replace("\\", "/")
             and not p.endswith("adaptive_repro/__init__.py")]
    assert not above, f"{name} imports a layer above the foundation: {above}"


def test_the_top_level_is_grouped_by_concept():
    """Subpackages by concept; at the top only the science modules with no layer of their own."""
    top = sorted(p.stem for p in sources.ROOT.glob("*.py") if p.name != "__init__.py")
    assert top == ["decisions", "groundtruth", "stats"], top


def test_no_module_over_450_lines():
    long = {name: n for name, path in package_modules() if (n := len(path.read_text().splitlines())) > 450}
    assert not long, long


def test_every_catalogue_output_has_a_builder_and_a_config_block():
    schema = config_schema()
    assert schema["properties"]["outputs"]["items"]["enum"] == list(catalogue.OUTPUT_IDS)
    experiment_blocks = set(schema["properties"]["experiments"]["properties"])
    for entry in catalogue.CATALOGUE:
        assert callable(entry.builder.build), entry.id
        assert entry.kind in ("experiment", "theory")
        if entry.kind == "experiment":
            assert entry.id in experiment_blocks, f"no schema block experiments.{entry.id}"


def test_unknown_output_is_named():
    with pytest.raises(KeyError, match="dwork-figure-9"):
        catalogue.get("dwork-figure-9")




#: docs/ARCHITECTURE.md's layer table, bottom first: (layer, module prefixes under adaptive_repro). A module may import
#: its own layer and the layers before it.
LAYERS = (("foundation", ("foundation",)),
          ("math", ("bounds", "privacy", "groundtruth", "stats", "decisions")),
          ("simulation", ("simulation",)),
          ("figure style", ("report.plotting", "report.figure_checks")),
          ("outputs", ("outputs",)),
          ("workflow support", ("pipeline",)),
          ("report", ("report.report_html",)))


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of a package module (the longest matching prefix wins), None if none matches."""
    rest = module.split(".", 1)[1] if "." in module else ""
    matches = [(len(prefix), i) for i, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes
               if rest == prefix or rest.startswith(prefix + ".")]
    return max(matches)[1] if matches else None


def test_the_layer_table_of_the_architecture_doc_is_the_one_checked():
    """The doc's table lists these layers in this order, and every package module belongs to one."""
    text = (sources.ROOT.parents[1] / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## Layers of the package", 1)[1].split("\n\n## ", 1)[0]
    rows = [line.split("|")[1].strip() for line in section.splitlines() if line.startswith("| ")][1:]
    assert [row.split(" (")[0] for row in rows] == [name for name, _ in LAYERS], rows
    unplaced = [name for name, path in package_modules() if path.name != "__init__.py" and name.count(".")
                and layer_of(name) is None]
    assert not unplaced, unplaced


def test_every_import_goes_to_the_same_layer_or_one_below():
    """Function-level imports included (sources.imported_modules parses every import statement)."""
    modules = {name for name, path in package_modules() if path.name != "__init__.py"}
    upward = [f"{m} ({LAYERS[layer_of(m)][0]}) imports {n} ({LAYERS[layer_of(n)][0]})" for m in sorted(modules)
              if layer_of(m) is not None for n in sources.imported_modules(m)
              if n in modules and layer_of(n) is not None and layer_of(n) > layer_of(m)]
    assert not upward, upward


def test_no_two_packages_import_each_other():
    import networkx as nx

    def package(module: str) -> str:
        parts = module.split(".")
        return parts[1] if len(parts) > 2 else "(top level)"

    modules = [name for name, path in package_modules() if path.name != "__init__.py"]
    graph = nx.DiGraph([(package(m), package(n)) for m in modules for n in sources.imported_modules(m)
                        if n in modules and package(n) != package(m)])
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not circles, circles


def test_no_import_circle_function_level_imports_included():
    """No module imports, directly or through others, a module that imports it back (function-level imports count;
    package __init__ files, which only gather their modules' names, are left out)."""
    import networkx as nx

    modules = [name for name, path in package_modules() if path.name != "__init__.py"]
    graph = nx.DiGraph([(m, n) for m in modules for n in sources.imported_modules(m) if n in modules and n != m])
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not circles, circles


@pytest.mark.parametrize("entry", catalogue.CATALOGUE, ids=lambda o: o.id)
def test_one_hop_from_an_output_id_to_its_figure_code(entry):
    """The catalogue row names the module that draws the output's figure: it defines a figure function and the
    builder imports it (or is it)."""
    import importlib

    module = importlib.import_module(entry.figure_module)
    drawers = [name for name, obj in vars(module).items() if callable(obj)
               and getattr(obj, "__module__", "") == module.__name__ and ("figure" in name or "panels" in name)]
    assert drawers, f"{entry.figure_module} draws no figure"
    builder = f"adaptive_repro.outputs.{entry.module}"
    assert entry.figure_module == builder or entry.figure_module in sources.imported_modules(builder)


def test_the_unit_tests_mirror_the_package():
    """tests/unit/ has one folder per subpackage of adaptive_repro (and no other), and at its top only the tests of
    the top-level modules (test_<module>.py)."""
    unit = sources.ROOT.parents[1] / "tests" / "unit"
    packages = {p.name for p in sources.ROOT.iterdir() if p.is_dir() and list(p.glob("*.py"))}
    folders = {p.name for p in unit.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert folders == packages, (sorted(folders), sorted(packages))
    top_modules = {p.stem for p in sources.ROOT.glob("*.py") if p.name != "__init__.py"}
    top_tests = {p.stem.removeprefix("test_") for p in unit.glob("test_*.py")}
    assert top_tests <= top_modules, sorted(top_tests - top_modules)


def test_a_papers_outputs_sit_in_its_own_folder():
    """outputs/<paper>/ holds every builder of that paper's outputs (and its figure module, unless the figure is a
    view several papers share, at the top of outputs/): a newcomer finds a paper's outputs in one folder."""
    for entry in catalogue.CATALOGUE:
        assert entry.module.startswith(f"{entry.paper}."), (entry.id, entry.module)
        shared = "." not in entry.figures
        assert shared or entry.figures.startswith(f"{entry.paper}."), (entry.id, entry.figures)
    top = {p.stem for p in (sources.ROOT / "outputs").glob("*.py") if p.name != "__init__.py"}
    builders = {entry.module for entry in catalogue.CATALOGUE}
    assert not top & builders, "a builder at the top of outputs/"
