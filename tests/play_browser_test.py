#!/usr/bin/env python3
"""The playground in a real browser, and its limits over plain HTTP.

    play_browser_test.py browser PLAY CH11   Debian's headless Chromium, driven by Selenium through
                                             chromedriver, types a sentence and reads the page back
    play_browser_test.py limits PLAY CH11    what the server refuses, and with which status

Both train a tiny vowel model in a few seconds (two steps of an 8-wide model: the numbers on the
page are checked for what they must be, not for being good), start build/bin/play on a free port
of 127.0.0.1, and stop it with SIGINT, which must end it cleanly. Exit code 77 (ctest's
SKIP_RETURN_CODE) when Chromium, chromedriver or Selenium is missing: `./tutorial` installs them
from the `browser` group of debian-packages.txt.
"""
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "play"))
import browser  # noqa: E402
from browser import TYPED  # noqa: E402

SKIP = 77
READ = "the time traveller sat down"  # TYPED as training reads it (case, punctuation)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def train_tiny_model(ch11, folder):
    checkpoint = os.path.join(folder, "tiny.ckpt")
    command = [ch11, "--task", "vowels", "--steps", "2", "--eval-every", "0",
               "--set", "d_model=8", "--set", "d_ff=16", "--set", "n_heads=2",
               "--save", checkpoint, "--restore", "th* t*m*"]
    run = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        fail("training the tiny model failed:\n" + run.stdout + run.stderr)
    return checkpoint


def post(address, path, fields, host=None):
    request = urllib.request.Request(address + path, data=urllib.parse.urlencode(fields).encode())
    if host:
        request.add_header("Host", host)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def check_limits(address):
    base = {"model": "0", "beam": "1", "text": TYPED}
    expect = [
        ("a good request", {}, None, 200, '"output"'),
        ("a text longer than 2000 bytes", {"text": "a" * 2001}, None, 413, "at most 2000"),
        ("a body larger than 16 KiB", {"text": "a" * 20000}, None, 413, "too large"),
        ("a model that is not loaded", {"model": "1"}, None, 400, "model must be from 0 to 0"),
        ("a path instead of a model", {"model": "/etc/passwd"}, None, 400, "whole number"),
        ("beam 0", {"beam": "0"}, None, 400, "beam must be from 1 to 8"),
        ("a text without letters", {"text": "1234 !?"}, None, 400, "no letter a-z"),
        ("another Host (DNS rebinding)", {}, "evil.example:80", 403, "answers only to"),
    ]
    for what, change, host, status, says in expect:
        got_status, body = post(address, "/api/answer", {**base, **change}, host)
        if got_status != status or says not in body:
            fail("%s: expected %d saying '%s', got %d: %s" % (what, status, says, got_status,
                                                              body[:300]))
        print("ok: %s -> %d" % (what, status))
    got_status, body = post(address, "/api/attention", {**base, "kind": "sideways", "window": "0",
                                                        "layer": "0", "head": "0"})
    if got_status != 400 or "kind must be" not in body:
        fail("a bad attention kind: got %d: %s" % (got_status, body))
    try:
        urllib.request.urlopen(address + "/etc/passwd", timeout=10)
        fail("a path was served")
    except urllib.error.HTTPError as error:
        if error.code != 404:
            fail("a path: got %d" % error.code)
    print("ok: a path -> 404")


def check_browser(address):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser.chromium(1280, 900)
    try:
        error = browser.read_sentence(driver, address, TYPED)
        wait = WebDriverWait(driver, 30)
        if error:
            fail("the page says: " + error)
        output = driver.find_element(By.ID, "output").text
        print("output: " + output)
        # Every letter the reader typed is kept; only the vowels are the model's.
        if len(output) != len(READ):
            fail("the output '%s' does not have the %d characters of '%s'" % (output, len(READ),
                                                                               READ))
        for got, typed in zip(output, READ):
            if typed in "aeiou" and got not in "aeiou":
                fail("a hidden vowel became '%s' in '%s'" % (got, output))
            if typed not in "aeiou" and got != typed:
                fail("the typed '%s' became '%s' in '%s'" % (typed, got, output))
        notes = driver.find_element(By.ID, "notes").text
        if "lower-cased 'T'" not in notes or "'.'" not in notes:
            fail("the notes do not say what was changed: " + notes)
        first = driver.find_element(By.CSS_SELECTOR, "#choices tr td:nth-child(3) .choice").text
        found = re.search(r"(\d+\.\d)%", first)
        if not found or not 0.0 < float(found.group(1)) <= 100.0:
            fail("no probability in the first choice: '%s'" % first)
        print("first choice: " + first.strip())
        # The heat map drawn for this input: its columns are the typed text's own tokens.
        labels = [t.text for t in driver.find_elements(By.CSS_SELECTOR, "#heatmap svg text")]
        masked = "".join("*" if c in "aeiou" else ("\u2423" if c == " " else c) for c in READ)
        if masked not in "".join(label for label in labels if len(label) == 1):
            fail("the heat map's labels %s do not spell '%s'" % (labels, masked))
        print("heat map labelled with " + masked)
        # Another head, chosen with a click, draws another map.
        driver.find_elements(By.CSS_SELECTOR, "#head-buttons button")[1].click()
        wait.until(lambda d: "head 1" in d.find_element(By.ID, "heatmap").text)
        print("ok: the page restored, weighed and drew '%s'" % TYPED)
    finally:
        driver.quit()


def main():
    mode, play, ch11 = sys.argv[1:4]
    if mode == "browser":
        browser.run_with_debian_python(sys.argv)
        missing = browser.missing_browser_parts()
        if missing:
            print("SKIP: not installed: %s (the browser group of debian-packages.txt)"
                  % ", ".join(missing))
            return SKIP
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="play-test-") as folder:
        checkpoint = train_tiny_model(ch11, folder)
        print("tiny model trained in %.1f s" % (time.time() - start))
        try:
            server = browser.Playground(play, [checkpoint])
        except browser.PlaygroundError as error:
            fail(str(error))
        try:
            if mode == "browser":
                check_browser(server.address)
            else:
                check_limits(server.address)
        except BaseException:
            server.process.kill()
            raise
        try:
            server.stop()
        except browser.PlaygroundError as error:
            fail(str(error))
    print("passed in %.1f s" % (time.time() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
