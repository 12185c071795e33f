"""A real headless browser for the report test: Debian's chromium, installed with apt-get when missing (root)."""
import os
import shutil
import subprocess
from pathlib import Path

from apt_lock import apt_install

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-extensions", "--no-first-run", "--hide-scrollbars"]


class BrowserUnavailable(RuntimeError):
    """No chromium and no way to install it (not root, or no apt-get)."""


def chromium() -> str:
    """Path of a chromium binary, installing Debian's package if needed (about 40 s)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise BrowserUnavailable("chromium is not installed and installing it needs root and apt-get")
    for cmd, res in apt_install(["chromium"], timeout=900, installed=lambda: bool(shutil.which("chromium"))):
        assert res.returncode == 0, f"{' '.join(cmd)} failed:\n{res.stderr[-2000:]}"
    return shutil.which("chromium")


def dump_dom(page: Path, timeout: float = 120, width: int = 1400, height: int = 900) -> str:
    """The DOM of ``page`` after chromium has parsed and laid it out in a ``width`` x ``height`` window."""
    res = subprocess.run([chromium(), *FLAGS, f"--window-size={width},{height}", "--dump-dom", page.resolve().as_uri()],
                         capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


def screenshot(page: Path, png: Path, width: int = 1400, height: int = 2400, timeout: float = 120) -> Path:
    """A screenshot of the top of ``page`` as chromium draws it."""
    res = subprocess.run([chromium(), *FLAGS, f"--window-size={width},{height}", f"--screenshot={png}",
                          page.resolve().as_uri()], capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0 and png.is_file(), res.stderr[-2000:]
    return png
