"""Every text file is read and written as UTF-8 explicitly (issue 37, item 7): with Python's UTF-8 mode off and a
C or Latin-1 locale, the default encoding is ASCII or Latin-1, and the workflow's captions, claims and config files
(which hold non-ASCII text: epsilon, em dashes) fail with Unicode errors."""
import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CODE = [ROOT / "src", ROOT / "workflow" / "scripts", ROOT / "tools", ROOT / "benchmarks"]


def _mode(call: ast.Call, position: int) -> str:
    node = call.args[position] if len(call.args) > position else next(
        (k.value for k in call.keywords if k.arg == "mode"), None)
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else "r"


def text_io_without_encoding(source: str) -> list[int]:
    """Lines of calls that read or write text in the locale's encoding: open()/Path.open() in a text mode,
    read_text/write_text, subprocess calls with text=True or universal_newlines=True, without ``encoding=``."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or any(k.arg == "encoding" for k in node.keywords):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        owner = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else ""
        if name == "open" and owner not in ("Image", "os", "tarfile", "zipfile", "gzip"):
            if "b" not in _mode(node, 1 if isinstance(func, ast.Name) or owner == "io" else 0):
                lines.append(node.lineno)
        elif name in ("read_text", "write_text") and isinstance(func, ast.Attribute) and owner != "io":
            # (write_text(text, path) and io.write_text are this package's helper, which writes UTF-8)
            lines.append(node.lineno)
        elif any(k.arg in ("text", "universal_newlines") and getattr(k.value, "value", False) for k in node.keywords):
            lines.append(node.lineno)
    return lines


def test_the_check_finds_text_io_in_the_locale_encoding():
    source = ("open(p)\nopen(p, 'w')\nPath(p).read_text()\np.write_text(t)\nopen(p, 'rb')\n"
              "subprocess.run(c, text=True)\nopen(p, encoding='utf-8')\nImage.open(p)\nio.write_text(t, p)\n"
              "write_text(t, p)\n")
    assert text_io_without_encoding(source) == [1, 2, 3, 4, 6]


def test_every_text_file_is_read_and_written_as_utf8():
    found = [f"{path.relative_to(ROOT)}:{line}" for folder in CODE for path in sorted(folder.rglob("*.py"))
             for line in text_io_without_encoding(path.read_text(encoding="utf-8"))]
    assert not found, f"text read or written without encoding='utf-8': {found}"


def test_non_ascii_text_round_trips_in_the_c_locale(tmp_path):
    """The package's own writer and the claims reader, run with UTF-8 mode off in the C locale."""
    script = ("import sys\nfrom adaptive_repro.foundation import config, io\n"
              "io.write_text('eps: 1.0  # \\u03b5 \\u2014 caf\\u00e9\\n', sys.argv[1])\n"
              "print(config.read_yaml(sys.argv[1]))\n")
    env = os.environ | {"PYTHONUTF8": "0", "LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "utf-8",
                        "PYTHONPATH": str(ROOT / "src")}
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path / "a.yaml")], capture_output=True, env=env)
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    assert run.stdout.decode("utf-8").strip() == "{'eps': 1.0}"
