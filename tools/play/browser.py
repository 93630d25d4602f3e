"""The playground driven from Python: build/bin/play on a free port, and Debian's headless Chromium.

Shared by the browser test (tests/play_browser_test.py) and the book's screenshot
(tools/play/screenshot.py). Chromium, chromedriver and Selenium come from the `browser` group of
debian-packages.txt.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TYPED = "The Time Traveller sat down."  # the sentence the page's own text uses


class PlaygroundError(Exception):
    pass


def missing_browser_parts():
    """The parts of the browser group that are not installed (an empty list: all are)."""
    missing = [p for p in ("chromium", "chromedriver") if not shutil.which(p)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("python3-selenium")
    return missing


def run_with_debian_python(argv):
    """Re-runs this script with Debian's Python when Selenium is missing from this one: Debian's
    python3-selenium is for Debian's Python, and CMake may have found another one."""
    debian = "/usr/bin/python3"
    try:
        import selenium  # noqa: F401
    except ImportError:
        if os.path.realpath(sys.executable) != os.path.realpath(debian) and \
                os.path.exists(debian):
            os.execv(debian, [debian] + argv)


class Playground:
    """build/bin/play with `checkpoints` on a free port; the address is read from its first line."""

    def __init__(self, play, checkpoints):
        command = [play, "--port", "0"]
        for checkpoint in checkpoints:
            command += ["--model", checkpoint]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.output = []
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.output.append(line)
            found = re.search(r"playground: (http://127\.0\.0\.1:\d+)/", line)
            if found:
                self.address = found.group(1)
                return
        self.process.kill()
        raise PlaygroundError("the playground printed no address:\n" + "".join(self.output))

    def stop(self):
        """Ctrl-C: the server must stop by itself, saying so, with exit code 0."""
        self.process.send_signal(signal.SIGINT)
        try:
            rest, _ = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise PlaygroundError("the playground did not stop within 20 s of SIGINT")
        if self.process.returncode != 0 or "playground stopped" not in rest:
            raise PlaygroundError("SIGINT: exit code %d, output:\n%s" % (
                self.process.returncode, "".join(self.output) + rest))


def chromium(width, height):
    """Headless Chromium through chromedriver, with a window of width x height pixels, isolated
    from the user's profile and from the network's background services."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--hide-scrollbars", "--window-size=%d,%d" % (width, height),
                 "--user-data-dir=" + tempfile.mkdtemp(prefix="play-chromium-")]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.set_page_load_timeout(30)
    return driver


def read_sentence(driver, address, text):
    """Opens the page, types `text` and waits for the answer and its first heat map. Returns the
    page's error line ("" when there is none)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(address + "/")
    wait = WebDriverWait(driver, 30)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#model option"))
    driver.find_element(By.ID, "text").send_keys(text)
    driver.find_element(By.ID, "run").click()
    wait.until(lambda d: d.find_element(By.ID, "output").text.strip()
               or d.find_element(By.ID, "error").text.strip())
    error = driver.find_element(By.ID, "error").text
    if not error:
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#heatmap svg"))
    return error
