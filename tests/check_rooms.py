#!/usr/bin/env python3
"""The library's rooms (README.md, "Where each chapter's code lives"): every file of
common/include/tfm/ROOM and common/src/ROOM includes only its own room and the rooms below it,
every header's first line says its chapter or its room, and the layers and the model carry no
profiling (the shape trace's steps name their time). Prints each file that breaks a rule.

    check_rooms.py PROJECT_DIR           check the library
    check_rooms.py --self-test           show that each rule fails on a small tree with its defect
"""
import os
import re
import sys
import tempfile

# Bottom to top: a room may include the rooms before it.
ORDER = ["engine", "support", "core", "layers", "model", "data", "train", "decode", "pictures",
         "tasks", "machinery"]
LESSON = {"core", "layers", "model", "data", "train", "decode"}
# Rooms a reader reads line by line: their time is named by the trace's steps (engine/profile.hpp).
UNPROFILED = {"layers", "model"}
PROFILING = re.compile(r"\bprofile::|tfm/engine/profile\.hpp")
TAG = {"engine": r"Engine \(not a lesson\)", "support": r"Support \(not a lesson\)",
       "machinery": r"Machinery \(not a lesson\)", "tasks": r"Task \(chapter \d\d\)",
       "pictures": r"Pictures \(chapters? \d\d(-\d\d)?\)"}
INCLUDE = re.compile(r'^\s*#include "tfm/([a-z_]+)/[A-Za-z0-9_]+\.hpp"')
BRIEF = re.compile(r"^/// \\brief (.*)")


def problems(project):
    found = []
    for top in ("common/include/tfm", "common/src"):
        base = os.path.join(project, top)
        for room in sorted(os.listdir(base)):
            folder = os.path.join(base, room)
            if not os.path.isdir(folder):
                continue
            if room not in ORDER:
                found.append("%s/%s: a folder that is not a room (%s)" % (top, room, ", ".join(ORDER)))
                continue
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                where = "%s/%s/%s" % (top, room, name)
                lines = open(path, encoding="utf-8").read().split("\n")
                for number, line in enumerate(lines, 1):
                    m = INCLUDE.match(line)
                    if m and m.group(1) in ORDER and ORDER.index(m.group(1)) > ORDER.index(room):
                        found.append("%s:%d: the %s room includes tfm/%s/, a room above it (order: %s)"
                                     % (where, number, room, m.group(1), ", ".join(ORDER)))
                    elif m and m.group(1) not in ORDER:
                        found.append("%s:%d: includes tfm/%s/, which is not a room" % (where, number, m.group(1)))
                    if room in UNPROFILED and PROFILING.search(line):
                        found.append("%s:%d: profiling in the %s room (the trace's steps are timed instead)"
                                     % (where, number, room))
                if name.endswith(".hpp"):
                    brief = next((BRIEF.match(l).group(1) for l in lines if BRIEF.match(l)), "")
                    want = r"Chapter \d\d" if room in LESSON else TAG[room]
                    if not re.match(want + ":", brief):
                        found.append("%s: its \\brief should start with '%s:' (the %s room), not %r"
                                     % (where, want.replace("\\", "").replace(r"d", "N"), room, brief[:40]))
    return found


def self_test():
    cases = {
        "an include of a room above": ("core/a.hpp", '/// \\brief Chapter 01: a.\n#include "tfm/train/b.hpp"\n',
                                       "includes tfm/train/, a room above it"),
        "a folder that is not a room": ("io/a.hpp", "/// \\brief Chapter 01: a.\n", "not a room"),
        "a machinery header tagged as a chapter": ("machinery/a.hpp", "/// \\brief Chapter 11: a.\n",
                                                   "should start with 'Machinery"),
        "a profiling scope in a layer": ("layers/a.hpp", '/// \\brief Chapter 05: a.\nprofile::Scope timed("a");\n',
                                         "profiling in the layers room"),
    }
    failed = 0
    for what, (name, text, expected) in cases.items():
        with tempfile.TemporaryDirectory() as project:
            for top in ("common/include/tfm", "common/src"):
                os.makedirs(os.path.join(project, top))
            path = os.path.join(project, "common/include/tfm", name)
            os.makedirs(os.path.dirname(path))
            open(path, "w").write(text)
            got = problems(project)
            if not any(expected in p for p in got):
                print("self-test: %s was not caught (got %s)" % (what, got))
                failed += 1
    print("self-test: %d of %d defects caught" % (len(cases) - failed, len(cases)))
    return failed == 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 0 if self_test() else 1
    found = problems(argv[1])
    for p in found:
        print("FAIL:", p)
    if not found:
        print("every file of common/ includes only its room and the rooms below it, and names its chapter or "
              "room; layers/ and model/ carry no profiling")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
