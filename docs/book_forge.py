"""Chapter pages that read on the forge (GitHub) and in a terminal, and the Doxygen markup the
book is built from.

A chapter page (chapters/NN_name/README.md) is Markdown that GitHub shows as it is. `book.py
filter` (Doxygen's filter of every page) turns it into the markup Doxygen reads, one line in, one
line out, so that Doxygen's warnings keep the page's line numbers (a line the book does not need
becomes a blank line):

    the page says                                the book reads
    $x$, or $`x`$ when x holds \\, \\! \\{ or _  \\f$ x \\f$
    a ```math fence                              \\f[ on its first line, \\f] on its last
    [text](../04_masks/README.md)                \\ref ch04 "text" (\\ref ch04 if text is its title)
    [text](../04_masks/README.md#ch04_mask)      \\ref ch04_mask "text"
    ## Heading <a id="label"></a>                ## Heading {#label}
    <!-- snippet FILE [TAG] --> and a fence      \\snippet FILE TAG; the fence: blank lines
    TEXT <!-- book: COMMAND -->                  COMMAND (TEXT: what the forge reader sees
                                                 instead, in a sentence)
    <!-- book: COMMAND --> and one line of TEXT  COMMAND and a blank line (for a COMMAND that
                                                 holds "--", which ends a comment inside a line)
    <!-- book: \\dot "caption" -->, a line and   \\dot "caption", the diagram, \\enddot
    a ```dot fence

Doxygen markup that is already there (\\f$, \\snippet, ...) passes unchanged, so the other pages
of the book need no change. The code in a snippet's fence is a copy of the source between its
two `// [TAG]` (or `# [TAG]`) markers: `book.py sync-snippets PAGE...` rewrites it, and
`book.py sync-snippets --check PAGE...` (ctest book.snippets_in_step) fails when a copy differs,
or when a chapter page holds Doxygen markup the forge would show as is.

Standard library only.
"""
import os
import re
import textwrap

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ------------------------------------------------------------------------------------------------
# Quoted code: where a snippet's file is, and its lines between the markers

# A marker `// [tag]` (C++) or `# [tag]` (Python) on a line of its own opens and then closes the
# code a page quotes.
MARKER = re.compile(r"^\s*(?://|#) \[([^\]]+)\]\s*$")

# The folders of Doxygen's example path, without the book's output directory (a page quotes no
# output as code): docs/example_dirs.txt, which docs/CMakeLists.txt reads too.
EXAMPLE_DIRS = [line.strip() for line in open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                           "example_dirs.txt"), encoding="utf-8")
                if line.strip() and not line.startswith("#")]


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def example_roots(source_dir=SOURCE_DIR):
    return [os.path.join(source_dir, d) for d in EXAMPLE_DIRS]


_FILES = {}


def resolve(roots, name):
    """The one file under `roots` that `name` names, as Doxygen's example path finds it, or None
    (no file, or several)."""
    key = tuple(roots)
    if key not in _FILES:
        _FILES[key] = []
        for root in roots:
            for dirpath, _, files in os.walk(root):
                for f in files:
                    full = os.path.join(dirpath, f)
                    _FILES[key].append((os.path.relpath(full, root).replace(os.sep, "/"), full))
    found = [full for rel, full in _FILES[key] if rel == name or rel.endswith("/" + name)]
    return found[0] if len(found) == 1 else None


def markers(path):
    """Every marker of a source file: {tag: [its lines, 1-based]}."""
    found = {}
    for i, line in enumerate(read(path).split("\n"), 1):
        m = MARKER.match(line)
        if m:
            found.setdefault(m.group(1), []).append(i)
    return found


def snippet_lines(path, tag):
    """First and last line (1-based) of the code between the two '[tag]' markers, or None."""
    marks = markers(path).get(tag, [])
    if len(marks) < 2:
        return None
    return marks[0] + 1, marks[1] - 1


def snippet_code(path, tag):
    """The lines a fence shows for `tag` of `path` (common indentation removed), or None."""
    span = snippet_lines(path, tag)
    if span is None:
        return None
    lines = read(path).split("\n")[span[0] - 1:span[1]]
    return textwrap.dedent("\n".join(line.rstrip() for line in lines)).split("\n")


def fence_language(name):
    return {".cpp": "cpp", ".hpp": "cpp", ".h": "cpp", ".py": "python", ".cmake": "cmake",
            ".sh": "sh"}.get(os.path.splitext(name)[1], "text")


# ------------------------------------------------------------------------------------------------
# The page's structure: fences, the comments that carry the book's markup

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)\s*$")
SNIPPET_COMMENT = re.compile(r"^(\s*)<!--\s*snippet\s+(\S+)\s+\[([^\]]+)\]\s*-->\s*$")
BOOK_COMMENT = re.compile(r"^(\s*)<!--\s*book:\s*(.*?)\s*-->\s*$")
BOOK_LINE = re.compile(r"^(\s*)\S.*?\s*<!--\s*book:\s*(.*?)\s*-->\s*$")
HEADING_ANCHOR = re.compile(r'^(#{1,6}\s.*?)\s*<a id="(\w+)"></a>\s*$')
HEADING_LABEL = re.compile(r"^#{1,6}\s+(.*?)\s*(?:\{#(\w+)\}|<a id=\"(\w+)\"></a>)\s*$")


def closing_fence(lines, start):
    """The index of the line that closes the fence opened at `start` (the last line if none)."""
    m = FENCE.match(lines[start])
    mark = m.group(2)
    for k in range(start + 1, len(lines)):
        c = FENCE.match(lines[k])
        if c and not c.group(3) and c.group(2)[0] == mark[0] and len(c.group(2)) >= len(mark):
            return k
    return len(lines) - 1


def forge_line_follows(lines, k):
    """Whether line k is the forge reader's line under a <!-- book: --> comment: text, not a
    blank line, a fence, a comment or HTML."""
    return (k < len(lines) and lines[k].strip() != "" and not FENCE.match(lines[k])
            and not lines[k].lstrip().startswith("<"))


def structure(lines):
    """[(kind, first, last, match)] of the page's pieces that are not prose: "snippet" (comment,
    then its fence if one follows), "book" (comment, then its forge line; for \\dot, the fence
    too), "bookline" (forge text and the comment on one line), "math", "fence" (any other fenced
    code) and "dot" (an old \\dot ... \\enddot)."""
    pieces, i = [], 0
    while i < len(lines):
        line = lines[i]
        m = SNIPPET_COMMENT.match(line)
        if m:
            last = i
            if i + 1 < len(lines) and FENCE.match(lines[i + 1]):
                last = closing_fence(lines, i + 1)
            pieces.append(("snippet", i, last, m))
            i = last + 1
            continue
        m = BOOK_COMMENT.match(line)
        if m:
            last = i + 1 if forge_line_follows(lines, i + 1) else i
            if m.group(2).startswith("\\dot") and last + 1 < len(lines) and \
                    FENCE.match(lines[last + 1]):
                last = closing_fence(lines, last + 1)
            pieces.append(("book", i, last, m))
            i = last + 1
            continue
        m = BOOK_LINE.match(line)
        if m:
            pieces.append(("bookline", i, i, m))
            i += 1
            continue
        m = FENCE.match(line)
        if m:
            last = closing_fence(lines, i)
            pieces.append(("math" if m.group(3) == "math" else "fence", i, last, m))
            i = last + 1
            continue
        if re.match(r"^\s*\\dot\b", line):
            last = i
            while last + 1 < len(lines) and not re.match(r"^\s*\\enddot\b", lines[last]):
                last += 1
            pieces.append(("dot", i, last, None))
            i = last + 1
            continue
        i += 1
    return pieces


# ------------------------------------------------------------------------------------------------
# Links: the pages and section labels of the repository's Markdown

LINK_DIRS = ["chapters", "docs", "projects", "experiments", "exercises"]
_LABELS = {}


def label_index(source_dir):
    """{page's real path: (its label, its title, {section label: heading})} of every Markdown page
    of the book's folders that has a label on its first line."""
    if source_dir in _LABELS:
        return _LABELS[source_dir]
    index = {}
    for d in LINK_DIRS:
        for dirpath, dirs, files in os.walk(os.path.join(source_dir, d)):
            dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
            for f in files:
                if not f.endswith(".md"):
                    continue
                path = os.path.join(dirpath, f)
                lines = read(path).split("\n")
                m = HEADING_LABEL.match(lines[0])
                if not m:
                    continue
                sections = {}
                for line in lines[1:]:
                    s = HEADING_LABEL.match(line)
                    if s:
                        sections[s.group(2) or s.group(3)] = s.group(1)
                index[os.path.realpath(path)] = (m.group(2) or m.group(3), m.group(1), sections)
    _LABELS[source_dir] = index
    return index


def find_repository(path):
    """The repository a page belongs to: the first folder above it with docs/book.py, or None."""
    d = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.isfile(os.path.join(d, "docs", "book.py")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def ref_for_link(page, source_dir, text, target):
    """The \\ref a Markdown link to a page or section of the book becomes, or None (a link to
    anything else stays a link)."""
    if re.match(r"^[a-z]+:", target) or "\"" in text:
        return None
    path, _, fragment = target.partition("#")
    if not path:
        if not page:
            return None
        path = os.path.basename(page)
    elif not path.endswith(".md"):
        return None
    if not page or not source_dir:
        return None
    full = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(page)), path))
    entry = label_index(source_dir).get(full)
    if not entry:
        return None
    label, title, sections = entry
    shown = title
    if fragment:
        if fragment not in sections:
            return None
        label, shown = fragment, sections[fragment]
    return "\\ref %s" % label if text == shown else "\\ref %s \"%s\"" % (label, text)


# ------------------------------------------------------------------------------------------------
# Prose: formulas and links, never inside code spans

# $x$: no space after the opening $, none before the closing one, no digit after it ($5 and $6).
INLINE_MATH = re.compile(r"\$(?=[^\s$])((?:\\.|[^$\\])*?[^\s\\])\$(?!\d)", re.S)
LINK = re.compile(r"\[((?:[^\[\]\n]|\n(?![ \t]*\n))*)\]\(([^()\s]+)\)")


def prose_to_doxygen(text, link):
    """Formulas and links of prose to Doxygen's markup; code spans, comments and Doxygen's own
    formulas are copied unchanged, and no line is added or removed."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("<!--", i):
            j = text.find("-->", i)
            j = n if j < 0 else j + 3
            out.append(text[i:j])
            i = j
            continue
        if text.startswith("\\f$", i) or text.startswith("\\f[", i):
            close = "\\f$" if text[i + 2] == "$" else "\\f]"
            j = text.find(close, i + 3)
            j = n if j < 0 else j + 3
            out.append(text[i:j])
            i = j
            continue
        if c == "\\":
            out.append(text[i:i + 2])
            i += 2
            continue
        if text.startswith("$`", i):
            j = text.find("`$", i + 2)
            if j > 0 and not re.search(r"\n[ \t]*\n", text[i:j]):
                out.append("\\f$ %s \\f$" % text[i + 2:j].strip())
                i = j + 2
                continue
        if c == "`":
            run = re.match(r"`+", text[i:]).group(0)
            close = re.compile(r"(?<!`)%s(?!`)" % run)
            m = close.search(text, i + len(run))
            j = m.end() if m else i + len(run)
            out.append(text[i:j])
            i = j
            continue
        if c == "$":
            m = INLINE_MATH.match(text, i)
            if m and not re.search(r"\n[ \t]*\n", m.group(1)):
                out.append("\\f$ %s \\f$" % m.group(1))
                i = m.end()
                continue
        if c == "[":
            m = LINK.match(text, i)
            ref = m and link(m.group(1), m.group(2))
            if ref:
                out.append(ref)
                i = m.end()
                continue
        out.append(c)
        i += 1
    return "".join(out)


def to_doxygen(text, page=None, source_dir=None):
    """A page's text as Doxygen reads it: the forge's Markdown turned into the book's markup,
    one line for one line. `page` (its path) resolves relative links; `source_dir` is the
    repository (found from the page when not given)."""
    if page and source_dir is None:
        source_dir = find_repository(page)
    lines = text.split("\n")
    out = list(lines)
    prose = [True] * len(lines)
    for kind, first, last, m in structure(lines):
        for k in range(first, last + 1):
            prose[k] = False
        if kind == "snippet":
            out[first] = "%s\\snippet %s %s" % (m.group(1), m.group(2), m.group(3))
            for k in range(first + 1, last + 1):
                out[k] = ""
        elif kind == "book":
            out[first] = m.group(1) + m.group(2)
            if m.group(2).startswith("\\dot") and FENCE.match(lines[last]) and last > first:
                opening = first + 1 if FENCE.match(lines[first + 1]) else first + 2
                for k in range(first + 1, opening + 1):
                    out[k] = ""
                out[last] = m.group(1) + "\\enddot"
            elif last > first:
                out[first + 1] = ""
        elif kind == "bookline":
            out[first] = m.group(1) + m.group(2)
        elif kind == "math":
            out[first] = m.group(1) + "\\f["
            if last > first:
                out[last] = m.group(1) + "\\f]"
    for k, line in enumerate(lines):
        if prose[k]:
            a = HEADING_ANCHOR.match(line)
            if a:
                out[k] = "%s {#%s}" % (a.group(1), a.group(2))

    def link(label_text, target):
        return ref_for_link(page, source_dir, label_text, target)

    k = 0
    while k < len(lines):
        if not prose[k]:
            k += 1
            continue
        j = k
        while j < len(lines) and prose[j]:
            j += 1
        block = prose_to_doxygen("\n".join(out[k:j]), link).split("\n")
        assert len(block) == j - k
        out[k:j] = block
        k = j
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------
# The checks of a chapter page's source: code in step with its file, no Doxygen markup

DOXYGEN_MARKUP = re.compile(r"\\(?:snippet|include|ref|programoutputfolded|"
                            r"programoutput|resultstable|image|dot|enddot)\b|"
                            r"\\f\$(?:.*?\\f\$)?|\\f\[(?:.*?\\f\])?|\\f\]|\{#\w+\}\s*$")
WRITE_INSTEAD = {
    "\\snippet": "<!-- snippet FILE [TAG] --> and a ```cpp fence under it (book.py sync-snippets "
                 "fills it)",
    "\\include": "<!-- snippet FILE [TAG] --> and a fence, with markers around the lines",
    "\\f$": "$x$ (or $`x`$ when x holds \\, \\! \\{ or _)",
    "\\f[": "a ```math fence",
    "\\f]": "a ```math fence",
    "\\ref": "a Markdown link to the page's file, [text](../04_masks/README.md#label)",
    "{#": "<a id=\"label\"></a> at the end of the heading",
}


def snippet_sync(page, lines, roots, source_dir):
    """[(line index of the comment, problem or None, the fence's lines as they should be or None,
    first and last line of the fence now or None)] of every snippet comment of a page."""
    found = []
    for kind, first, last, m in structure(lines):
        if kind != "snippet":
            continue
        indent, name, tag = m.group(1), m.group(2), m.group(3)
        path = resolve(roots, name)
        fence = (first + 1, last) if last > first else None
        if path is None:
            found.append((first, "%s names no single file on the example path (%s)"
                          % (name, ", ".join(EXAMPLE_DIRS)), None, fence))
            continue
        code = snippet_code(path, tag)
        if code is None:
            found.append((first, "%s has no two markers [%s]" % (
                os.path.relpath(path, source_dir), tag), None, fence))
            continue
        wanted = [indent + "```" + fence_language(name)]
        wanted += [(indent + line) if line else "" for line in code]
        wanted.append(indent + "```")
        found.append((first, None, wanted, fence))
    return found


def markup_problems(page, lines):
    """Doxygen markup that the forge would show as is, outside code: [(line number, text)]."""
    problems = []
    prose = [True] * len(lines)
    for kind, first, last, _ in structure(lines):
        for k in range(first, last + 1):
            prose[k] = False
        if kind == "dot":
            problems.append((first + 1, "a bare \\dot: write <!-- book: \\dot \"caption\" -->, "
                                        "a line for the forge, and a ```dot fence"))
    for k, line in enumerate(lines):
        if not prose[k]:
            continue
        text = re.sub(r"(`+)(?:(?!\1).)+?\1", "", line)
        text = re.sub(r"<!--.*?-->", "", text)
        for m in DOXYGEN_MARKUP.finditer(text):
            word = m.group(0).strip()
            key = next((w for w in WRITE_INSTEAD if word.startswith(w)), None)
            instead = WRITE_INSTEAD.get(key) or (
                "<!-- book: %s... --> and a line under it for the forge reader" % word)
            problems.append((k + 1, "%s is Doxygen markup, shown as is on the forge: write %s"
                             % (key if key in ("\\f$", "\\f[") else word, instead)))
    return problems


def check_pages(pages, roots=None, source_dir=SOURCE_DIR, fix_command=None):
    """Every problem of the pages' sources: a snippet's code that differs from its file, a
    snippet that names no file or tag, Doxygen markup outside code, a <!-- book: --> comment
    without the line the forge shows. [str]."""
    roots = roots or example_roots(source_dir)
    problems = []
    for page in pages:
        lines = read(page).split("\n")
        shown = os.path.relpath(page)
        fix = fix_command or "python3 docs/book.py sync-snippets"
        for first, problem, wanted, fence in snippet_sync(page, lines, roots, source_dir):
            m = SNIPPET_COMMENT.match(lines[first])
            what = "%s [%s]" % (m.group(2), m.group(3))
            if problem:
                problems.append("%s:%d: the snippet %s: %s" % (shown, first + 1, what, problem))
            elif fence is None:
                problems.append("%s:%d: the snippet %s has no code fence under it; run: %s %s"
                                % (shown, first + 1, what, fix, shown))
            elif lines[fence[0]:fence[1] + 1] != wanted:
                path = resolve(roots, m.group(2))
                span = snippet_lines(path, m.group(3))
                problems.append("%s:%d: the code under the snippet %s differs from its source, "
                                "%s:%d-%d; run: %s %s"
                                % (shown, fence[0] + 1, what, os.path.relpath(path, source_dir),
                                   span[0], span[1], fix, shown))
        for n, text in markup_problems(page, lines):
            problems.append("%s:%d: %s" % (shown, n, text))
        for kind, first, last, m in structure(lines):
            if kind == "book" and last == first:
                problems.append("%s:%d: <!-- book: %s --> has no line under it for the forge "
                                "reader (what the book shows there, in a sentence)"
                                % (shown, first + 1, m.group(2)))
    return problems


def sync_page(page, roots=None, source_dir=SOURCE_DIR):
    """Rewrites every snippet fence of a page from its source (adds a missing fence). Returns the
    problems it could not fix."""
    roots = roots or example_roots(source_dir)
    text = read(page)
    lines = text.split("\n")
    problems = []
    # From the last to the first, so that the line numbers of the others stay valid.
    for first, problem, wanted, fence in reversed(snippet_sync(page, lines, roots, source_dir)):
        if problem:
            problems.append("%s:%d: %s" % (os.path.relpath(page), first + 1, problem))
            continue
        start, end = fence if fence else (first + 1, first)
        lines[start:end + 1] = wanted
    new = "\n".join(lines)
    if new != text:
        with open(page, "w", encoding="utf-8") as f:
            f.write(new)
        print("synced %s" % os.path.relpath(page))
    return problems
