#!/usr/bin/env python3
"""The book's picture of the playground: the page as a reader sees it, after typing the page's
own sentence for the model chapter 11 saved.

    screenshot.py PLAY CHECKPOINT OUT.png [WIDTH]

Starts build/bin/play with CHECKPOINT on a free port of 127.0.0.1, opens the page in Debian's
headless Chromium (WIDTH pixels wide, 1280 unless given), types the sentence, waits for the answer
and its heat map, and saves the whole page as OUT.png. Run by the book's build (docs/CMakeLists.txt);
it needs the `browser` group of debian-packages.txt, which `./tutorial docs` installs.
"""
import os
import sys

import browser


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__.strip())
        return 2
    play, checkpoint, out = sys.argv[1:4]
    width = int(sys.argv[4]) if len(sys.argv) == 5 else 1280
    browser.run_with_debian_python(sys.argv)
    missing = browser.missing_browser_parts()
    if missing:
        print("error: the book's picture of the playground needs %s: run ./tutorial install "
              "browser (the browser group of debian-packages.txt)" % ", ".join(missing))
        return 1
    if not os.path.isfile(os.path.join(checkpoint, "config.txt")):
        print("error: no checkpoint at '%s' (chapter 11 saves it when the book runs it)"
              % checkpoint)
        return 1
    server = browser.Playground(play, [checkpoint])
    try:
        driver = browser.chromium(width, 900)
        try:
            error = browser.read_sentence(driver, server.address, browser.TYPED)
            if error:
                print("error: the page says: " + error)
                return 1
            # The whole page, not only the first screen: the window grows to the page's height
            # (again, until the page's layout at that size fits).
            for _ in range(3):
                height = driver.execute_script("return document.documentElement.scrollHeight")
                inner = driver.execute_script("return window.innerHeight")
                if inner >= height:
                    break
                driver.set_window_size(width, driver.get_window_size()["height"] + height - inner)
            part = os.path.splitext(out)[0] + ".part.png"
            if not driver.save_screenshot(part):
                print("error: Chromium could not write '%s'" % part)
                return 1
            os.replace(part, out)
        finally:
            driver.quit()
    finally:
        server.stop()
    print("%s: the playground at %d pixels" % (out, width))
    return 0


if __name__ == "__main__":
    sys.exit(main())
