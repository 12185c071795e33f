"""environment.yml lists the same dependencies as pyproject.toml; requirements.txt pins all of them."""
import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _name(spec: str) -> str:
    return re.split(r"[<>=!~\[ ;]", spec.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pyproject_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        deps += extra
    return {_name(d) for d in deps}


def test_environment_yml_matches_pyproject():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    names = set()
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            names |= {_name(d) for d in dep["pip"] if not d.startswith("-e")}
        elif _name(dep) not in ("python", "pip"):
            names.add(_name(dep))
    assert names == pyproject_dependencies()


def test_requirements_pin_every_dependency():
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[_name(name)] = version
    missing = pyproject_dependencies() - set(pins)
    assert not missing, f"not pinned in requirements.txt: {missing}"
    assert all(pins[n] for n in pyproject_dependencies())
