"""environment.yml lists the same dependencies as pyproject.toml; requirements.txt pins all of them."""
import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _name(spec: str) -> str:
    return re.split(r"[<>=!~\[ ;]", spec.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pyproject_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    deps = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        deps += extra
    return {_name(d) for d in deps} - {_name(project["name"])}  # an extra naming another extra of this package


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


@pytest.mark.slow
def test_package_works_installed_outside_the_repository(tmp_path):
    """`pip install .` into a fresh environment: the schemas ship with the package, a config validates and an
    output builds, run from a folder that is not the repository."""
    import subprocess
    import sys

    wheel_dir = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(wheel_dir)],
                   check=True, capture_output=True)
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                    *map(str, wheel_dir.glob("*.whl"))], check=True, capture_output=True)
    code = ("import adaptive_repro, sys; from adaptive_repro.pipeline import catalogue, validation; "
            "assert adaptive_repro.__file__.startswith(sys.argv[1]), adaptive_repro.__file__; "
            "r = validation.validated({'seed': 1, 'outputs': ['he-kl'], 'experiments': {}}); "
            "t, f, c = catalogue.build('he-kl', catalogue.output_params(r, 'he-kl'), {}); print(len(t), len(c))")
    proc = subprocess.run([sys.executable, "-c", code, str(target)], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"})
    assert proc.returncode == 0, proc.stderr
