"""Tests of the local page: `rlm-mem serve` run as a person runs it (a subprocess whose first line is the address)
and Debian's headless Chromium driven through chromedriver (selenium, a test-only dependency).

Chromium is started the way this machine needs it (no sandbox as root, no background networking: the network is
closed) with a new, empty profile. When Chromium, chromedriver or selenium is missing, `missing()` says which in
one line and the browser tests skip with it; `.ci/run` installs them.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "tests" / "screenshots"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1280,1000")


def missing() -> str | None:
    """Why the browser tests cannot run here (one line), or None."""
    absent = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    try:
        import selenium  # noqa: F401 - only whether it is installed
    except ImportError:
        absent.append("selenium (pip install -e '.[test]')")
    if absent:
        return ("Chromium browser tests skipped: missing " + ", ".join(absent)
                + " (apt-get install chromium chromium-driver; .ci/run does it)")
    return None


def chromium(profile: Path):
    """A headless Chromium with an empty profile in `profile`, driven by chromedriver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS + (f"--user-data-dir={profile}",):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))


def screenshot(driver, name: str) -> Path:
    """The whole page as tests/screenshots/<name>.png (the window grown to the page's height for it)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    width, height = driver.get_window_size()["width"], driver.get_window_size()["height"]
    full = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, min(max(full + 140, height), 6000))
    driver.save_screenshot(str(path))
    driver.set_window_size(width, height)
    return path


class Served:
    """`rlm-mem serve` in a subprocess on a free port; `url` is the first line it printed."""

    def __init__(self, memory: Path, *args: str, cwd: Path | None = None):
        env = dict(os.environ, RLM_MEM_DIR=str(memory), PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen([sys.executable, "-m", "brain.cli.main", "serve", "--port", "0", *args],
                                        cwd=cwd or ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True)
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            self.stop()
            raise AssertionError(f"serve printed {self.url!r} first; stderr: {self.process.stderr.read()}")
        self.origin = "/".join(self.url.split("/")[:3])  # http://127.0.0.1:PORT

    def stop(self) -> str:
        """Stop the server; returns what it wrote to stderr."""
        self.process.terminate()
        try:
            _, err = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return err


class InProcess:
    """The same server in a thread of the test process (no interpreter start: most tests need only the page)."""

    def __init__(self, memory: Path, *, read_only: bool = False):
        from brain.context.project import project_id
        from brain.web.server import MemoryServer

        self.server = MemoryServer(memory, project_id(str(ROOT)), port=0, read_only=read_only)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = self.server.url
        self.origin = "/".join(self.url.split("/")[:3])

    def stop(self) -> str:
        self.server.shutdown()
        self.server.server_close()
        return ""


def run_cli(memory: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, RLM_MEM_DIR=str(memory))
    return subprocess.run([sys.executable, "-m", "brain.cli.main", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)


def new_profile() -> Path:
    return Path(tempfile.mkdtemp(prefix="rlm-mem-chromium-"))


def remove_profile(profile: Path) -> None:
    for _ in range(3):  # Chromium may still be writing its profile for a moment after quitting
        shutil.rmtree(profile, ignore_errors=True)
        if not profile.exists():
            return
        time.sleep(0.2)
