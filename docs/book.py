#!/usr/bin/env python3
"""The book's build steps that Doxygen cannot do itself (docs/CMakeLists.txt runs them).

    book.py prepare CONFIG      before Doxygen: each chapter's output as a plain-text HTML block
                                (long traces folded), the figures drawn from a chapter's printed
                                output, and the "In the book" note of every class a chapter
                                names
    book.py filter CONFIG PAGE  Doxygen's filter of every page: the page's forge Markdown turned
                                into Doxygen's markup (book_forge.py), and the file name above
                                each snippet
    book.py finish CONFIG       after Doxygen: previous/next links on every reader page, every SVG figure shown as an
                                image that scales to the column, MathJax quiet (and only where a
                                page has a formula), the chapters under "Related Pages", snippet
                                file names linked to their source, MathJax copied in, the
                                full-text search index (formulas as plain text)
    book.py check CONFIG        fails (exit 1) when the book breaks one of its rules (the rules
                                are in book_check.py)
    book.py try-it BIN RUNS PAGE...  runs every "Try it" exercise of the chapter pages with the
                                programs in BIN; each must succeed and change the output of the
                                chapter's own run (RUNS: the build's chapter_runs.txt)
    book.py try-it --save DIR BIN RUNS PAGE...  the same, keeping what each exercise printed as
                                DIR/chNN_try_K.txt, which the exercise's answer shows
    book.py sync-snippets PAGE...  rewrites the code under every <!-- snippet FILE [TAG] --> of
                                the pages from the source between its markers
    book.py sync-snippets --check PAGE...  fails (exit 1) when such code differs from its source,
                                or a page holds Doxygen markup the forge shows as is (ctest
                                book.snippets_in_step; no build needed)

CONFIG is the book.json that CMake writes. Standard library only.
"""
import html
import json
import os
import re
import shutil
import sys
from html.parser import HTMLParser

import book_forge
import book_tables

# ------------------------------------------------------------------------------------------------
# Shared


def load_config(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


read = book_forge.read


def write_if_changed(path, text):
    """Writes text to path unless it already holds it (keeps timestamps for the build)."""
    if os.path.exists(path) and read(path) == text:
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def doxyfile_inputs(cfg):
    """The paths of the Doxyfile's INPUT, as CMake wrote them (quoted, one per line)."""
    text = read(os.path.join(cfg["book_dir"], "Doxyfile"))
    m = re.search(r"^INPUT\s*=(.*?)(?<!\\)\n", text, re.S | re.M)
    return re.findall(r'"([^"]+)"', m.group(1)) if m else []


def reader_pages(cfg):
    """{html file name: markdown source} of the pages a reader reads: every Markdown page of the
    book's INPUT (the main page, the chapters, the search page and any other page), named as
    Doxygen names a page, after its label; the main page is index.html."""
    pages = {}
    for path in doxyfile_inputs(cfg):
        files = [path] if os.path.isfile(path) else [
            os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs]
        for f in sorted(files):
            if not f.endswith(".md"):
                continue
            with open(f, encoding="utf-8") as fh:
                first = fh.readline()
            m = re.search(r"(?:\{#(\w+)\}|<a id=\"(\w+)\"></a>)\s*$", first)
            if m:
                label = m.group(1) or m.group(2)
                name = "index.html" if label == "mainpage" else label + ".html"
                pages[name] = f
    return pages


def chapter_title(page_path):
    """'Chapter 05: Scaled dot-product attention' from the page's first line."""
    with open(page_path, encoding="utf-8") as f:
        first = f.readline()
    m = re.match(r"#\s*(Chapter \d\d: .*?)\s*(?:\{#ch\d\d\}|<a id=\"ch\d\d\"></a>)", first)
    return m.group(1) if m else first.strip("# \n")


# ------------------------------------------------------------------------------------------------
# prepare: chapter output -> plain-text HTML, with the long traces folded

# A line of the shape trace: "[Component] what it did   name -> [shape]   (axes)", indented.
TRACE_LINE = re.compile(r"^\s*\[[A-Za-z][^\]]*\] ")
FOLD_MIN_TRACE_LINES = 30  # a shorter trace stays in the text
FOLD_KEEP = 4  # lines of a folded trace shown before the fold


def trace_runs(lines):
    """(first, last) line indices of each run of trace lines; up to two lines without the
    bracket (a scope's title, e.g. 'Encoder layer 0') may sit inside a run."""
    is_trace = [bool(TRACE_LINE.match(line)) for line in lines]
    runs, i, n = [], 0, len(lines)
    while i < n:
        if not is_trace[i]:
            i += 1
            continue
        first = last = i
        k = i + 1
        while k < n:
            if is_trace[k]:
                last = k
                k += 1
                continue
            m = k
            while m < n and m - k < 3 and lines[m].strip() and not is_trace[m]:
                m += 1
            if m < n and is_trace[m] and m - k <= 2:
                k = m
                continue
            break
        runs.append((first, last, sum(is_trace[first:last + 1])))
        i = last + 1
    return runs


def wrapped(lines, width=115):
    """Lines longer than the column cut into pieces of `width` characters, each piece after the
    first indented and marked with a '↪', so that no output scrolls sideways."""
    out = []
    for line in lines:
        while len(line) > width:
            cut = line.rfind(" ", width // 2, width)
            cut = cut if cut > 0 else width
            out.append(line[:cut])
            line = "  ↪ " + line[cut:].lstrip()
        out.append(line)
    return out


def output_html(text, name):
    """The chapter's output as <pre> blocks; each long trace folded in a <details>."""
    lines = text.rstrip("\n").split("\n")
    parts, start = [], 0
    for first, last, count in trace_runs(lines):
        if count < FOLD_MIN_TRACE_LINES:
            continue
        fold_from = first + FOLD_KEEP
        parts.append(("pre", lines[start:fold_from]))
        parts.append(("fold", lines[fold_from:last + 1]))
        start = last + 1
    parts.append(("pre", lines[start:]))

    def pre(block):
        return '<pre class="tfm-output">' + html.escape("\n".join(wrapped(block))) + "</pre>\n"

    out = ['<div class="tfm-output" data-output="%s">\n' % html.escape(name)]
    for kind, block in parts:
        if not block:
            continue
        if kind == "pre":
            out.append(pre(block))
        else:
            out.append('<details class="tfm-fold"><summary>%d more lines of the shape trace '
                       "(click to show them)</summary>\n" % len(block))
            out.append(pre(block))
            out.append("</details>\n")
    out.append("</div>\n")
    return "".join(out)


def results_tables_html(text, name):
    """A results file as the program wrote it, its tables as HTML tables (the model's rows
    marked) and its other lines as plain text, in order (book_tables.py)."""
    out = ['<div class="tfm-results" data-output="%s">\n' % html.escape(name)]
    for segment in book_tables.segments(text):
        if segment[0] == "text":
            if any(line.strip() for line in segment[1]):
                out.append('<pre class="tfm-output">%s</pre>\n'
                           % html.escape("\n".join(wrapped(segment[1])).strip("\n")))
        else:
            out.append(book_tables.table_html(segment[1], segment[2]))
    out.append("</div>\n")
    return "".join(out)


def folded_output_html(text, name):
    """A program's whole output behind one fold (a page that shows its results on their own)."""
    return ('<details class="tfm-fold tfm-fold-all"><summary>everything %s printed (click to open)'
            "</summary>\n%s</details>\n" % (html.escape(name[:-4]), output_html(text, name)))


def prepare_outputs(cfg):
    outdir = cfg["output_dir"]
    for name in sorted(os.listdir(outdir)):
        if name.endswith(".txt"):
            stem = name[:-4]
            text = read(os.path.join(outdir, name))
            write_if_changed(os.path.join(outdir, stem + ".output.html"), output_html(text, name))
            write_if_changed(os.path.join(outdir, stem + ".folded.html"), folded_output_html(text, name))
            write_if_changed(os.path.join(outdir, stem + ".table.html"), results_tables_html(text, name))
    # Results recorded by a script and committed with a chapter (chapters/NN_name/recorded_*.txt,
    # e.g. tools/vowel_trials.py's tables): runs too long for the book's build, shown the same way.
    for ch in cfg["chapters"]:
        folder = os.path.dirname(ch["page"])
        for name in sorted(os.listdir(folder)):
            if name.startswith("recorded_") and name.endswith(".txt"):
                write_if_changed(os.path.join(outdir, name[:-4] + ".output.html"),
                                 output_html(read(os.path.join(folder, name)), name))


# ------------------------------------------------------------------------------------------------
# prepare: chapter 04's masks as a figure, from the 0/1 grids the chapter prints

MASK_HEADER = re.compile(r"^(.*), sentence (\d+) \(rows: query tokens, columns: key tokens\)$")


def parse_masks(text):
    """[(title, sentence, key tokens, [(query token, [0/1...])...])] from ch04's output."""
    lines = text.split("\n")
    masks, i = [], 0
    while i < len(lines):
        m = MASK_HEADER.match(lines[i])
        if not m:
            i += 1
            continue
        keys = lines[i + 1].split()
        rows, i = [], i + 2
        while i < len(lines) and lines[i].strip() and not MASK_HEADER.match(lines[i]):
            cells = lines[i].split()
            if len(cells) != len(keys) + 1 or not all(c in ("0", "1") for c in cells[1:]):
                break
            rows.append((cells[0], [int(c) for c in cells[1:]]))
            i += 1
        masks.append((m.group(1), int(m.group(2)), keys, rows))
    return masks


def masks_svg(masks):
    """One small grid per mask and sentence, allowed pairs dark and blocked pairs light: a row of
    grids per sentence, a column per mask. Drawn about 800 units wide with a viewBox, so that it
    scales to the column and its 12-unit labels stay at least 11 px on a 1280-px screen."""
    cell, gap, sentence_h = 22, 14, 22
    letter = 7  # units a 12-unit letter takes, about
    allowed, blocked = "#3b6fb6", "#eef1f5"
    titles = []
    for title, _, _, _ in masks:
        if title not in titles:
            titles.append(title)
    sentences = sorted({s for _, s, _, _ in masks})
    grid_w = max(len(k) for _, _, k, _ in masks) * cell
    grid_h = max(len(r) for _, _, _, r in masks) * cell
    # Each column as wide as its query words need; the key words, written upwards, set the height.
    label_ws = [max([34] + [8 + letter * len(q) for t, _, _, rows in masks if t == title
                            for q, _ in rows]) for title in titles]
    head_h = max([34] + [10 + letter * len(k) for _, _, keys, _ in masks for k in keys])
    col_x = [10]
    for label_w in label_ws:
        col_x.append(col_x[-1] + label_w + grid_w + gap)
    row_h = sentence_h + head_h + grid_h + gap
    width = col_x[-1]
    legend_h = 30
    height = 48 + len(sentences) * row_h + legend_h
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="12">' % (width, height, width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    # The masks' names above the first row, in lines that fit a column (7.6 units a bold letter).
    for c, title in enumerate(titles):
        lines = [""]
        for word in title.replace(" mask", "").replace(" (both)", ", both").split(" "):
            if lines[-1] and 7.6 * len(lines[-1] + " " + word) > col_x[c + 1] - col_x[c] - 8:
                lines.append(word)
            else:
                lines[-1] = (lines[-1] + " " + word).strip()
        for k, part in enumerate(lines[:2]):
            out.append('<text x="%d" y="%d" font-weight="bold">%s</text>'
                       % (col_x[c] + 4, 16 + 15 * k, html.escape(part)))
    for r, sentence in enumerate(sentences):
        top = 48 + r * row_h
        out.append('<text x="10" y="%d" font-weight="bold">sentence %d</text>'
                   '<text x="90" y="%d" fill="#555">rows: query tokens, columns: key tokens</text>'
                   % (top + 14, sentence, top + 14))
        y0 = top + sentence_h + head_h
        for c, title in enumerate(titles):
            found = [m for m in masks if m[0] == title and m[1] == sentence]
            if not found:
                continue
            _, _, keys, rows = found[0]
            x0 = col_x[c] + label_ws[c]
            for j, key in enumerate(keys):  # written upwards: "pad" fits a 22-unit column
                out.append('<text transform="translate(%d,%d) rotate(-90)" dy="0.35em">%s</text>'
                           % (x0 + j * cell + cell // 2, y0 - 5, html.escape(key)))
            for i, (query, values) in enumerate(rows):
                out.append('<text x="%d" y="%d" text-anchor="end">%s</text>'
                           % (x0 - 5, y0 + i * cell + cell // 2 + 4, html.escape(query)))
                for j, v in enumerate(values):
                    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s" '
                               'stroke="white"><title>query %s, key %s: %s</title></rect>'
                               % (x0 + j * cell, y0 + i * cell, cell, cell,
                                  allowed if v else blocked, html.escape(query),
                                  html.escape(keys[j]), "may attend" if v else "blocked"))
    y = height - 12
    out.append('<rect x="10" y="%d" width="14" height="14" fill="%s"/>' % (y - 11, allowed))
    out.append('<text x="30" y="%d">1 = may attend</text>' % y)
    out.append('<rect x="140" y="%d" width="14" height="14" fill="%s" stroke="#999"/>'
               % (y - 11, blocked))
    out.append('<text x="160" y="%d">0 = blocked</text>' % y)
    out.append("</svg>\n")
    return "\n".join(out)


def prepare_figures(cfg):
    path = os.path.join(cfg["output_dir"], "ch04_masks.txt")
    if os.path.exists(path):
        masks = parse_masks(read(path))
        if not masks:
            sys.exit("book.py: found no mask grid in %s (did chapter 04 change its output?)" % path)
        write_if_changed(os.path.join(cfg["output_dir"], "masks.svg"), masks_svg(masks))


# ------------------------------------------------------------------------------------------------
# prepare: "In the book" on the page of every class that a chapter names (tfm::Name)


def library_classes(cfg):
    include = os.path.join(cfg["source_dir"], "common", "include")
    kinds = {}  # name -> "class" or "struct"
    for root, _, files in os.walk(include):
        for f in files:
            if f.endswith(".hpp"):
                for m in re.finditer(r"(?m)^(class|struct)\s+(\w+)\b[^;\n]*$",
                                     read(os.path.join(root, f))):
                    kinds[m.group(2)] = m.group(1)
    return kinds


def prepare_class_links(cfg):
    classes = library_classes(cfg)
    seen = {}  # class -> [chapter numbers]
    for ch in cfg["chapters"]:
        for name in re.findall(r"\btfm::([A-Z]\w*)", read(ch["page"])):
            if name in classes and ch["number"] not in seen.setdefault(name, []):
                seen[name].append(ch["number"])
    out = ["/* Generated by docs/book.py prepare from the chapter pages: which chapters name each",
           "   class. Do not edit. */", ""]
    for name in sorted(seen):
        refs = ", ".join('\\ref ch%s "chapter %s"' % (n, n) for n in seen[name])
        out += ["/**", "\\%s tfm::%s" % (classes[name], name), "", "\\par In the book",
                "Discussed in %s." % refs, "*/", ""]
    write_if_changed(os.path.join(cfg["generated_dir"], "chapter_links.dox"), "\n".join(out))


def cmd_prepare(cfg):
    prepare_outputs(cfg)
    prepare_figures(cfg)
    prepare_class_links(cfg)


# ------------------------------------------------------------------------------------------------
# filter: the file name above every \snippet (Doxygen's FILTER_PATTERNS for *.md)

SNIPPET = re.compile(r"^(\s*)\\snippet(?:\{[^}]*\})?\s+(\S+)\s+(.+?)\s*$")


def resolve_example(cfg, name):
    """The one file the example path gives for `name`, as Doxygen finds it, or None."""
    return book_forge.resolve(cfg["example_roots"], name)


# A marker `// [tag]` (`# [tag]` in Python) on a line of its own opens and then closes the code a
# page quotes: book_forge's markers and snippet_lines.
MARKER = book_forge.MARKER
markers = book_forge.markers
snippet_lines = book_forge.snippet_lines


def doxygen_text(page, cfg=None):
    """A page's text as Doxygen reads it: its forge Markdown turned into Doxygen's markup, one
    line for one line (book_forge.py)."""
    return book_forge.to_doxygen(read(page), page, cfg["source_dir"] if cfg else None)


def cmd_filter(cfg, page):
    out = []
    for line in doxygen_text(page, cfg).split("\n"):
        m = SNIPPET.match(line)
        if m:
            indent, name, tag = m.groups()
            path = resolve_example(cfg, name)
            if path:  # else Doxygen reports the bad reference itself
                rel = os.path.relpath(path, cfg["source_dir"]).replace(os.sep, "/")
                span = snippet_lines(path, tag)
                where = rel + (":%d-%d" % span if span else "")
                # One line in, one line out: Doxygen's warnings keep the page's line numbers.
                line = ('%s\\htmlonly[block]<div class="tfm-snippet-file">%s</div>\\endhtmlonly%s'
                        % (indent, html.escape(where), line.lstrip()))
        out.append(line)
    sys.stdout.write("\n".join(out))


# ------------------------------------------------------------------------------------------------
# finish

class TextExtractor(HTMLParser):
    """The prose of a page's <div class="contents">, cut into sections at every heading with an
    anchor; code, program output and scripts are left out."""

    SKIP = {"pre", "script", "style", "svg", "details", "object", "iframe"}
    VOID = {"br", "img", "hr", "input", "meta", "link", "area", "col", "source", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0  # inside div.contents: its div depth
        self.skip = 0
        self.fragment_depth = 0
        self.heading = None
        self.sections = [["", "", []]]  # anchor, heading, words
        self.last_anchor = ""
        self.div_stack = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "") or ""
        if tag == "div":
            if self.depth == 0 and "contents" in cls.split():
                self.depth = 1
                self.div_stack.append("contents")
                return
            if self.depth:
                kind = "skip" if ("fragment" in cls.split() or "tfm-chapter-nav" in cls
                                  or "tfm-snippet-file" in cls or "dynheader" in cls
                                  or "dyncontent" in cls) else "div"
                if kind == "skip":
                    self.skip += 1
                self.div_stack.append(kind)
            return
        if not self.depth:
            return
        if tag in self.SKIP:
            self.skip += 1
        if tag == "a" and a.get("id") and "anchor" in cls:
            self.last_anchor = a["id"]
        if tag in ("h1", "h2", "h3", "h4") and not self.skip:
            self.heading = []

    def handle_startendtag(self, tag, attrs):
        if self.depth and tag == "a":
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag == "div" and self.div_stack:
            kind = self.div_stack.pop()
            if kind == "contents":
                self.depth = 0
            elif kind == "skip":
                self.skip -= 1
            return
        if not self.depth:
            return
        if tag in self.SKIP and self.skip:
            self.skip -= 1
        if tag in ("h1", "h2", "h3", "h4") and self.heading is not None:
            title = " ".join("".join(self.heading).split())
            self.sections.append([self.last_anchor, title, []])
            self.heading = None

    def handle_data(self, data):
        if not self.depth or self.skip:
            return
        if self.heading is not None:
            self.heading.append(data)
        else:
            self.sections[-1][2].append(data)


def page_title(text):
    m = re.search(r'<div class="title">(.*?)</div>', text, re.S)
    if not m:
        m = re.search(r"<title>(.*?)</title>", text, re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip() if m else ""


def chapter_pages(cfg):
    """[(number, file name, title)] of the chapter pages Doxygen wrote, in order."""
    pages = []
    for ch in cfg["chapters"]:
        name = "ch%s.html" % ch["number"]
        path = os.path.join(cfg["html_dir"], name)
        if os.path.exists(path):
            pages.append((ch["number"], name, page_title(read(path))))
    return pages


# The reading order after the chapters: the exercises and the PyTorch map, the projects, then the
# appendix. A reader page that is not listed here (a page added later) follows them, in the order
# of its title; the main page and the search page are not in the sequence.
PAGES_AFTER_CHAPTERS = ["exercises", "pytorch", "project_pronounce", "project_translate", "lab",
                        "machine", "mixed_precision", "glossary", "references_page"]
OUTSIDE_THE_SEQUENCE = ("index.html", "book_search.html")


def reading_order(cfg):
    """[(file name, title)] of the reader pages in the order a reader reads them: the chapters,
    then PAGES_AFTER_CHAPTERS, then every other reader page."""
    html_dir = cfg["html_dir"]
    chapters = [(name, title) for _, name, title in chapter_pages(cfg)]
    names = {name for name, _ in chapters}
    rest = []
    for name in reader_pages(cfg):
        path = os.path.join(html_dir, name)
        if name in names or name in OUTSIDE_THE_SEQUENCE or not os.path.exists(path):
            continue
        label = name[:-len(".html")]
        known = PAGES_AFTER_CHAPTERS.index(label) if label in PAGES_AFTER_CHAPTERS else None
        title = page_title(read(path))
        rest.append(((0, known, "") if known is not None else (1, 0, title.lower()), name, title))
    return chapters + [(name, title) for _, name, title in sorted(rest)]


def nav_html(prev, nxt, up, where):
    def link(target, cls, text):
        return '<a class="%s" href="%s">%s</a>' % (cls, target, html.escape(text))
    return ('<div class="tfm-chapter-nav tfm-chapter-nav-%s">%s%s%s</div>\n'
            % (where, link(prev[0], "tfm-prev", "\u2190 " + prev[1]),
               link(up[0], "tfm-up", up[1]), link(nxt[0], "tfm-next", nxt[1] + " \u2192")))


def add_navigation(cfg):
    """Previous / contents / next at the top and the bottom of every page of the reading order."""
    pages = reading_order(cfg)
    chapters = {name for _, name, _ in chapter_pages(cfg)}
    for k, (name, title) in enumerate(pages):
        prev = pages[k - 1] if k > 0 else ("index.html", "The book's contents")
        nxt = pages[k + 1] if k + 1 < len(pages) else ("annotated.html", "The code: classes and files")
        up = ("index.html#chapter_map", "All chapters") if name in chapters else ("index.html", "Contents")
        path = os.path.join(cfg["html_dir"], name)
        text = read(path)
        text = re.sub(r'<div class="tfm-chapter-nav[^"]*">.*?</div>\n', "", text)
        text = text.replace('<div class="contents">\n', '<div class="contents">\n'
                            + nav_html(prev, nxt, up, "top"), 1)
        i = text.rfind("</div><!-- contents -->")
        if i < 0:
            sys.exit("book.py: no end of contents in %s" % path)
        text = text[:i] + nav_html(prev, nxt, up, "bottom") + text[i:]
        write_if_changed(path, text)


def source_pages(cfg):
    """Project-relative path -> the page Doxygen wrote with the file's source."""
    result = {}
    html_dir = cfg["html_dir"]
    for name in os.listdir(html_dir):
        if not name.endswith("_source.html"):
            continue
        text = read(os.path.join(html_dir, name))
        # The path appears in the page's navigation: <li class="navelem">dir</li>... file
        elems = re.findall(r'<li class="navelem">(.*?)</li>', text, re.S)
        parts = [html.unescape(re.sub(r"<[^>]+>", "", e)).strip() for e in elems]
        if parts:
            result["/".join(parts)] = name
    return result


def html_pages(cfg, containing):
    """(path, text) of every HTML page of the book whose text contains `containing`."""
    html_dir = cfg["html_dir"]
    for name in sorted(os.listdir(html_dir)):
        if name.endswith(".html"):
            path = os.path.join(html_dir, name)
            text = read(path)
            if containing in text:
                yield path, text


def link_snippet_files(cfg):
    sources = source_pages(cfg)
    missing = set()
    caption = re.compile(r'<div class="tfm-snippet-file">(.*?)</div>', re.S)
    for path, text in html_pages(cfg, "tfm-snippet-file"):

        def fix(m):
            where = html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip()
            file, _, span = where.partition(":")
            page = find_source_page(sources, file)
            first_line, _, last_line = span.partition("-")
            label = file + ("" if not span else ", line " + first_line if first_line == last_line
                            else ", lines %s\u2013%s" % (first_line, last_line))
            if not page and file.endswith(".py"):
                # The book's source pages are the C++ ones: a Python file is named, not linked.
                return '<div class="tfm-snippet-file">%s</div>' % html.escape(label)
            if not page:
                missing.add(file)
                return m.group(0)
            first = span.split("-")[0] if span else ""
            href = page + ("#l%05d" % int(first) if first.isdigit() else "")
            return ('<div class="tfm-snippet-file"><a href="%s" title="the whole file, with '
                    'links to every name it uses">%s</a></div>' % (href, html.escape(label)))

        write_if_changed(path, caption.sub(fix, text))
    return missing


def find_source_page(sources, file):
    if file in sources:
        return sources[file]
    # Doxygen strips common/include from the headers' paths (STRIP_FROM_PATH).
    for key, page in sources.items():
        if file.endswith("/" + key) or key.endswith("/" + file):
            return page
    return None


def copy_mathjax(cfg):
    target = os.path.join(cfg["html_dir"], "mathjax")
    if os.path.islink(target):
        os.unlink(target)
    stamp = os.path.join(target, ".copied-from")
    source = os.path.realpath(cfg["mathjax_dir"])
    if os.path.exists(stamp) and read(stamp) == source:
        return
    if os.path.exists(target):
        shutil.rmtree(target)
    # symlinks=False: the Debian package links its fonts from elsewhere; copy the files.
    # Only what the book's configuration (tex2jax, input/TeX, output/HTML-CSS with the TeX
    # fonts, English) loads: 5 MB instead of 32.
    skip = {"unpacked", "config", "localization", "test", "docs", "SVG", "CommonHTML",
            "PreviewHTML", "NativeMML", "PlainSource", "AsciiMath", "MathML", "STIX-Web",
            "Asana-Math", "Gyre-Pagella", "Gyre-Termes", "Latin-Modern", "Neo-Euler", "STIX",
            "eot", "svg"}
    shutil.copytree(source, target, symlinks=False,
                    ignore=lambda d, names: [n for n in names if n in skip])
    with open(stamp, "w") as f:
        f.write(source)


# The search shows plain text: a formula's TeX becomes the symbols it stands for
# (\frac{Q K^\top}{\sqrt{d_k}} -> QKᵀ/√d_k), as a reader would type or read it.
TEX_SYMBOLS = {
    "times": "×", "cdot": "·", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠",
    "neq": "≠", "approx": "≈", "in": "∈", "sum": "Σ", "prod": "Π", "infty": "∞", "to": "→",
    "leftarrow": "←", "rightarrow": "→", "odot": "⊙", "ldots": "…", "dots": "…", "cdots": "⋯",
    "langle": "⟨", "rangle": "⟩", "mid": "|", "lfloor": "⌊", "rfloor": "⌋", "partial": "∂",
    "pm": "±", "sim": "~", "top": "ᵀ", "mathbb{R}": "ℝ", "alpha": "α", "beta": "β",
    "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "theta": "θ", "lambda": "λ",
    "mu": "μ", "pi": "π", "sigma": "σ", "omega": "ω", "Delta": "Δ", "ell": "ℓ", "max": "max",
    "min": "min", "exp": "exp", "log": "log", "ln": "ln", "sin": "sin", "cos": "cos",
}
TEX_SPACES = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg|displaystyle|textstyle)\b|"
                        r"\\[!,;:> ]|\\q?quad\b|&|\\\\")
TEX_GROUP = r"\{((?:[^{}]|\{[^{}]*\})*)\}"


def tex_to_text(tex):
    s = TEX_SPACES.sub(" ", tex).replace(r"\mathbb{R}", "ℝ")
    s = re.sub(r"\^\s*\\top\b", "ᵀ", s)
    s = re.sub(r"\\begin\{\w+\*?\}|\\end\{\w+\*?\}", " ", s)

    def simple(text):
        return re.fullmatch(r"[\w.√ᵀ^+-]+", text.strip()) is not None

    for _ in range(6):  # nested groups, from the inside out
        s = re.sub(r"([_^])\{([^{}]*)\}",
                   lambda m: m.group(1) + (m.group(2) if simple(m.group(2))
                                           else "(%s)" % m.group(2)), s)
        s = re.sub(r"\\(?:mathrm|text|mathbf|mathit|operatorname|boldsymbol)\s*" + TEX_GROUP,
                   r"\1", s)
        s = re.sub(r"\\sqrt\s*" + TEX_GROUP,
                   lambda m: "√" + (m.group(1) if simple(m.group(1)) else "(%s)" % m.group(1)), s)
        s = re.sub(r"\\frac\s*" + TEX_GROUP + r"\s*" + TEX_GROUP,
                   lambda m: "%s/%s" % tuple(g if simple(g) else "(%s)" % g
                                             for g in (m.group(1).strip(), m.group(2).strip())),
                   s)
    s = re.sub(r"\\([A-Za-z]+)", lambda m: TEX_SYMBOLS.get(m.group(1), m.group(1)), s)
    s = s.replace("{", "").replace("}", "").replace("\\", "")
    return " ".join(s.split())


def plain_formulas(text):
    """Text with every \\( ... \\) and \\[ ... \\] of MathJax's delimiters as plain text."""
    return re.sub(r"\\\((.*?)\\\)|\\\[(.*?)\\\]",
                  lambda m: tex_to_text(m.group(1) if m.group(1) is not None else m.group(2)),
                  text, flags=re.S)


def build_search_index(cfg):
    html_dir = cfg["html_dir"]
    chapters = {name for _, name, _ in chapter_pages(cfg)}
    readers = reader_pages(cfg)
    entries = []
    for name in sorted(os.listdir(html_dir)):
        if (not name.endswith(".html") or name.endswith("_source.html") or name.startswith("dir_")
                or name in ("book_search.html", "graph_legend.html") or "-members" in name
                or name.endswith("_incl.html") or name.endswith("_dep_incl.html")):
            continue
        text = read(os.path.join(html_dir, name))
        parser = TextExtractor()
        parser.feed(text)
        title = page_title(text)
        sections = []
        for anchor, heading, words in parser.sections:
            body = " ".join(plain_formulas(" ".join(words)).split())
            heading = plain_formulas(heading)
            if body or heading:
                sections.append({"a": anchor, "h": heading, "x": body})
        if not sections:
            continue
        kind = "chapter" if name in chapters else "page" if name in readers else "code"
        entries.append({"p": name, "t": title, "k": kind, "s": sections})
    data = json.dumps(entries, ensure_ascii=False, separators=(",", ":"))
    write_if_changed(os.path.join(html_dir, "book-search-index.js"),
                     "/* Generated by docs/book.py finish: the text of the book's pages. */\n"
                     "window.TFM_BOOK_INDEX = " + data + ";\n")


def add_search_script(cfg):
    """Every page loads book-search.js: Enter in the search box searches the text."""
    tag = '<script type="text/javascript" src="book-search.js"></script>\n'
    for path, text in html_pages(cfg, "</head>"):
        if "book-search.js" not in text:
            write_if_changed(path, text.replace("</head>", tag + "</head>", 1))


# Every figure scales to the column: Doxygen shows an SVG figure in an <object> (\image) or an
# <iframe> (\dot) of a fixed width, which the page's CSS cannot shrink without cutting it. An
# <img> scales with its viewBox (book.css: max-width 100%). Only figures without links: the class
# graphs of the code pages keep their clickable nodes.
OBJECT_SVG = re.compile(r'<object type="image/svg\+xml" data="([^"]+\.svg)"( width="[^"]*")?'
                        r'[^>]*></object>')
IFRAME_SVG = re.compile(r'<iframe scrolling="no" frameborder="0" src="([^"]+\.svg)" '
                        r'width="(\d+)" height="\d+">.*?</iframe>', re.S)


def svg_has_links(path):
    return os.path.exists(path) and "<a " in read(path)


def figures_as_images(cfg):
    html_dir = cfg["html_dir"]
    for name in reader_pages(cfg):
        path = os.path.join(html_dir, name)
        if not os.path.exists(path):
            continue
        text = read(path)

        def from_object(m):
            if svg_has_links(os.path.join(html_dir, m.group(1))):
                return m.group(0)
            width = re.search(r'"([^"]*)"', m.group(2)).group(1) if m.group(2) else ""
            style = ' style="width:%s"' % width if width.endswith("%") else (
                ' width="%s"' % width if width else "")
            return '<img src="%s"%s alt=""/>' % (m.group(1), style)

        def from_iframe(m):
            if svg_has_links(os.path.join(html_dir, m.group(1))):
                return m.group(0)
            return '<img src="%s" width="%s" alt=""/>' % (m.group(1), m.group(2))

        write_if_changed(path, IFRAME_SVG.sub(from_iframe, OBJECT_SVG.sub(from_object, text)))


# MathJax 2 shows a "Loading [MathJax]/extensions/MathZoom.js" box while it loads its parts: off.
# A page without a formula does not load MathJax at all.
MATHJAX_CONFIG = "MathJax.Hub.Config({\n"
MATHJAX_SCRIPTS = re.compile(r'<script type="text/x-mathjax-config">.*?</script>\n'
                             r'<script type="text/javascript" async="async" '
                             r'src="mathjax/MathJax.js"></script>\n', re.S)
HAS_FORMULA = re.compile(r"\\\(|\\\[|\\begin\{")


def quiet_mathjax(cfg):
    for path, text in html_pages(cfg, "mathjax/MathJax.js"):
        body = text[text.find("<body"):]
        if not HAS_FORMULA.search(body):
            text = MATHJAX_SCRIPTS.sub("", text, count=1)
        elif 'messageStyle: "none"' not in text:
            text = text.replace(MATHJAX_CONFIG, MATHJAX_CONFIG + '  messageStyle: "none",\n', 1)
        write_if_changed(path, text)


def list_reader_pages(cfg):
    """Doxygen's "Related Pages" lists only the pages outside the main page's tree; a reader
    looks for the chapters there. Rewrites its table: the chapters in order, then every other
    page of the book."""
    html_dir = cfg["html_dir"]
    path = os.path.join(html_dir, "pages.html")
    if not os.path.exists(path):
        return
    ordered = [name for name, _ in reading_order(cfg)]
    others = [n for n in OUTSIDE_THE_SEQUENCE[1:] if os.path.exists(os.path.join(html_dir, n))]
    rows = []
    for k, name in enumerate(ordered + others):
        title = page_title(read(os.path.join(html_dir, name)))
        rows.append('<tr id="row_%d_" class="%s"><td class="entry"><span style="width:16px;'
                    'display:inline-block;">&#160;</span><a class="el" href="%s" target="_self">'
                    "%s</a></td><td class=\"desc\"></td></tr>"
                    % (k, "even" if k % 2 == 0 else "odd", name, html.escape(title)))
    text = read(path)
    text = re.sub(r'(<table class="directory">\n).*?(</table>)',
                  lambda m: m.group(1) + "\n".join(rows) + "\n" + m.group(2), text, count=1,
                  flags=re.S)
    text = text.replace("Here is a list of all related documentation pages:",
                        "The chapters, in order, and the book's other pages:")
    write_if_changed(path, text)


# Two links Doxygen 1.9.4 writes to pages or anchors it does not write: a function declared in a
# header of projects/ or experiments/ (documented there, defined in a .cpp without a file comment)
# links to the .cpp's page, and a class whose nested class is left out (EXCLUDE_SYMBOLS, private)
# keeps "Classes" in its summary line. The first goes to the documentation on the page itself (or
# the .cpp's source), the second is dropped.
MISSING_FILE_LINK = re.compile(r'href="(\w+_8cpp)\.html(?:#(\w+))?"')
SUMMARY_LINK = re.compile(r'<a href="#([\w-]+)">[^<]*</a>(?: &#124;)?\n')


def repair_doxygen_links(cfg):
    html_dir = cfg["html_dir"]
    for path, text in html_pages(cfg, 'href="'):
        ids = set(re.findall(r'\b(?:id|name)="([^"]+)"', text))

        def to_existing(m):
            stem, anchor = m.group(1), m.group(2)
            if os.path.exists(os.path.join(html_dir, stem + ".html")):
                return m.group(0)
            if anchor and anchor in ids:
                return 'href="#%s"' % anchor
            if os.path.exists(os.path.join(html_dir, stem + "_source.html")):
                return 'href="%s_source.html"' % stem
            return m.group(0)

        def summary_link(m):
            return m.group(0) if m.group(1) in ids else ""

        text = MISSING_FILE_LINK.sub(to_existing, text)
        start = text.find('<div class="summary">')
        if start >= 0:
            end = text.find("</div>", start)
            text = text[:start] + SUMMARY_LINK.sub(summary_link, text[start:end]) + text[end:]
        write_if_changed(path, text)


def cmd_finish(cfg):
    repair_doxygen_links(cfg)
    add_navigation(cfg)
    figures_as_images(cfg)
    quiet_mathjax(cfg)
    list_reader_pages(cfg)
    missing = link_snippet_files(cfg)
    if missing:
        sys.exit("book.py: no source page for %s (is the file in the book's INPUT?)"
                 % ", ".join(sorted(missing)))
    copy_mathjax(cfg)
    build_search_index(cfg)
    add_search_script(cfg)


# ------------------------------------------------------------------------------------------------
# check: the rules are in book_check.py


def cmd_check(cfg):
    import book_check
    problems = book_check.check(cfg)
    if problems:
        sys.stderr.write("The book breaks %d of its rules (docs/book.py check):\n" % len(problems))
        for p in problems:
            sys.stderr.write("  " + p + "\n")
        sys.exit(1)
    print("book.py check: %d chapter pages; every figure fits the column, every output line "
          "too; the pages' numbers come from their runs" % len(chapter_pages(cfg)))


# ------------------------------------------------------------------------------------------------
# try-it: every exercise of a chapter's "Try it" section runs, and changes the output

TRY_IT_HEADING = re.compile(r"^##\s+Try it\b")
TRY_IT_COMMAND = re.compile(r"`\./tutorial chapter (\d+)((?: [^`]*)?)`")


ANSWER_OPEN = '<details class="tfm-answer"><summary>Answer</summary>'
ANSWER_CLOSE = "</details>"


def try_it_answers(page):
    """[(line number, the item's text, its answer's text or None)] of every list item of a
    chapter page's "## Try it" section. An item's answer is the fold under it, from a line
    ANSWER_OPEN to a line ANSWER_CLOSE."""
    items, inside, answer = [], False, None
    for n, line in enumerate(doxygen_text(page).split("\n"), 1):
        if line.startswith("## "):
            inside = bool(TRY_IT_HEADING.match(line))
            continue
        if not inside:
            continue
        if answer is not None:
            if line.strip() == ANSWER_CLOSE:
                items[-1][2], answer = " ".join(answer), None
            else:
                answer.append(line.strip())
        elif items and line.strip() == ANSWER_OPEN:
            answer = []
        elif re.match(r"\s*(\d+\.|-)\s", line):
            items.append([n, line, None])
        elif items and line.strip():
            items[-1][1] += " " + line.strip()
    return [tuple(item) for item in items]


def try_it_items(page):
    """[(line number, text)] of every list item of a chapter page's "## Try it" section, without
    its answer."""
    return [(n, text) for n, text, _ in try_it_answers(page)]


def try_it_output_stem(chapter, number):
    """The name of what exercise `number` (counted from 1 in its list) of a chapter's "Try it"
    printed, without ".txt": chNN_try_K. The book's build writes it, the answer shows it."""
    return "ch%02d_try_%d" % (chapter, number)


def try_it_commands(page):
    """[(chapter number, [arguments], line number, whether it should stop with an error)] of the
    exercises of a chapter page: the first `./tutorial chapter N ...` of every list item of its
    "## Try it" section. An item that says "error" expects the program to refuse the command."""
    commands = []
    for n, text in try_it_items(page):
        m = TRY_IT_COMMAND.search(text)
        if m:
            commands.append((int(m.group(1)), m.group(2).split(), n,
                             re.search(r"\berror\b", text) is not None))
    return commands


def without_times(text):
    """Output with every time and rate ("1.96 s", "16.9 GFLOP/s") replaced by "<t>": they differ
    at every run."""
    return re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)? ?(s|ms|min)\b|\b\d+(\.\d+)? ?[A-Za-z]*/s\b", "<t>",
                  text)


def cmd_try_it(bin_dir, runs_file, pages, save_dir=None):
    """Runs every exercise command of the pages' "Try it" sections: each must end without an
    error and print something else than the chapter's own run (its line in chapter_runs.txt),
    or, if its item says so, stop with an error message. With `save_dir`, what each printed
    (its error message, for one that must stop) is kept there as chNN_try_K.txt, for the book's
    answers."""
    import shlex
    import subprocess
    import tempfile
    defaults = {}
    for line in read(runs_file).split("\n"):
        if line.strip():
            exe, *args = shlex.split(line)
            defaults[int(exe[2:4])] = (exe, args)
    failures, count, baseline = [], 0, {}
    for page in pages:
        number_of = {n: k for k, (n, _) in enumerate(try_it_items(page), 1)}
        for chapter, args, line, expects_error in try_it_commands(page):
            count += 1
            where = "%s:%d: ./tutorial chapter %d %s" % (page, line, chapter, " ".join(args))
            if chapter not in defaults:
                failures.append(where + ": no chapter %d" % chapter)
                continue
            exe, default_args = defaults[chapter]
            with tempfile.TemporaryDirectory() as work:
                def run(arguments):
                    return subprocess.run([os.path.join(bin_dir, exe)] + arguments, cwd=work,
                                          capture_output=True, text=True, timeout=600)
                if chapter not in baseline:
                    baseline[chapter] = without_times(run(default_args).stdout)
                result = run(args)
            if save_dir:
                stem = try_it_output_stem(chapter, number_of[line])
                write_if_changed(os.path.join(save_dir, stem + ".txt"),
                                 result.stderr if expects_error else result.stdout)
            if expects_error:
                # Refused with a message, the way every bad input is: exit code 1 or 2.
                if result.returncode not in (1, 2) or "error" not in result.stderr:
                    failures.append("%s: should stop with an error message, got exit code %d"
                                    % (where, result.returncode))
                else:
                    print("ok   %s (%s)" % (where, result.stderr.strip().split("\n")[-1]))
            elif result.returncode != 0:
                failures.append("%s: exit code %d: %s" % (where, result.returncode,
                                                         result.stderr.strip()[-300:]))
            elif without_times(result.stdout) == baseline[chapter]:
                failures.append(where + ": prints the same as the chapter's own run")
            else:
                print("ok   " + where)
    if failures:
        sys.stderr.write("%d of %d exercises fail:\n  %s\n" % (len(failures), count,
                                                                "\n  ".join(failures)))
        sys.exit(1)
    print("%d exercises run and change the output" % count)


def cmd_sync_snippets(args):
    check = args[:1] == ["--check"]
    pages = args[1:] if check else args
    if check:
        problems = book_forge.check_pages(pages)
        if problems:
            sys.stderr.write("%d problems in the pages' sources:\n  %s\n"
                             % (len(problems), "\n  ".join(problems)))
            sys.exit(1)
        print("%d pages: every quoted code equals its source, no Doxygen markup shown as is"
              % len(pages))
        return
    problems = []
    for page in pages:
        problems += book_forge.sync_page(page)
    if problems:
        sys.stderr.write("\n".join(problems) + "\n")
        sys.exit(1)


def main(argv):
    if len(argv) >= 3 and argv[1] == "sync-snippets":
        cmd_sync_snippets(argv[2:])
        return
    if len(argv) >= 5 and argv[1] == "try-it":
        if argv[2] == "--save" and len(argv) >= 7:
            cmd_try_it(argv[4], argv[5], argv[6:], save_dir=argv[3])
        else:
            cmd_try_it(argv[2], argv[3], argv[4:])
        return
    if len(argv) < 3 or argv[1] not in ("prepare", "filter", "finish", "check"):
        sys.exit(__doc__)
    cfg = load_config(argv[2])
    if argv[1] == "prepare":
        cmd_prepare(cfg)
    elif argv[1] == "filter":
        cmd_filter(cfg, argv[3])
    elif argv[1] == "finish":
        cmd_finish(cfg)
    else:
        cmd_check(cfg)


if __name__ == "__main__":
    main(sys.argv)
