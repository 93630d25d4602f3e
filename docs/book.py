#!/usr/bin/env python3
"""The book's build steps that Doxygen cannot do itself (docs/CMakeLists.txt runs them).

    book.py prepare CONFIG      before Doxygen: each chapter's output as a plain-text HTML block
                                (long traces folded), the figures drawn from a chapter's printed
                                output, and the "In the book" note of every class a chapter names
    book.py filter CONFIG PAGE  Doxygen's filter of every page: the file name above each snippet
    book.py finish CONFIG       after Doxygen: previous/next links, snippet file names linked to
                                their source, MathJax copied in, the full-text search index
    book.py check CONFIG        fails (exit 1) when the book breaks one of its rules

CONFIG is the book.json that CMake writes. Standard library only.
"""
import html
import json
import os
import re
import shutil
import sys
from html.parser import HTMLParser

# ------------------------------------------------------------------------------------------------
# Shared


def load_config(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def write_if_changed(path, text):
    """Writes text to path unless it already holds it (keeps timestamps for the build)."""
    if os.path.exists(path) and read(path) == text:
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def chapter_title(page_path):
    """'Chapter 05: Scaled dot-product attention' from the page's first line."""
    with open(page_path, encoding="utf-8") as f:
        first = f.readline()
    m = re.match(r"#\s*(Chapter \d\d: .*?)\s*\{#ch\d\d\}", first)
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
        return '<pre class="tfm-output">' + html.escape("\n".join(block)) + "</pre>\n"

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


def prepare_outputs(cfg):
    outdir = cfg["output_dir"]
    for name in sorted(os.listdir(outdir)):
        if name.endswith(".txt"):
            stem = name[:-4]
            write_if_changed(os.path.join(outdir, stem + ".output.html"),
                             output_html(read(os.path.join(outdir, name)), name))
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
    """One small grid per mask and sentence: allowed pairs dark, blocked pairs light."""
    cell, gap, label_w, top = 26, 36, 40, 52
    allowed, blocked = "#3b6fb6", "#eef1f5"
    titles = []
    for title, _, _, _ in masks:
        if title not in titles:
            titles.append(title)
    sentences = sorted({s for _, s, _, _ in masks})
    grid_w = max(len(k) for _, _, k, _ in masks) * cell
    grid_h = max(len(r) for _, _, _, r in masks) * cell
    col_w = label_w + grid_w + gap
    row_h = top + grid_h + gap
    width = 170 + len(titles) * col_w
    height = 40 + len(sentences) * row_h + 30
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>']
    for c, title in enumerate(titles):
        x0 = 170 + c * col_w + label_w
        words = title.replace(" mask", "").replace(" (both)", ", both").split(" ")
        half = (len(words) + 1) // 2
        for k, part in enumerate((" ".join(words[:half]), " ".join(words[half:]))):
            out.append('<text x="%d" y="%d" font-weight="bold">%s</text>'
                       % (x0, 18 + 14 * k, html.escape(part)))
    for r, sentence in enumerate(sentences):
        y0 = 40 + r * row_h + top
        out.append('<text x="10" y="%d">sentence %d</text>' % (y0 + 10, sentence))
        out.append('<text x="10" y="%d" fill="#555">rows: queries</text>' % (y0 + 28))
        out.append('<text x="10" y="%d" fill="#555">columns: keys</text>' % (y0 + 44))
        for c, title in enumerate(titles):
            found = [m for m in masks if m[0] == title and m[1] == sentence]
            if not found:
                continue
            _, _, keys, rows = found[0]
            x0 = 170 + c * col_w + label_w
            for j, key in enumerate(keys):
                out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>'
                           % (x0 + j * cell + cell // 2, y0 - 6, html.escape(key)))
            for i, (query, values) in enumerate(rows):
                out.append('<text x="%d" y="%d" text-anchor="end">%s</text>'
                           % (x0 - 6, y0 + i * cell + cell // 2 + 4, html.escape(query)))
                for j, v in enumerate(values):
                    out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s" '
                               'stroke="white"><title>query %s, key %s: %s</title></rect>'
                               % (x0 + j * cell, y0 + i * cell, cell, cell,
                                  allowed if v else blocked, html.escape(query),
                                  html.escape(keys[j]), "may attend" if v else "blocked"))
    y = height - 14
    out.append('<rect x="170" y="%d" width="14" height="14" fill="%s"/>' % (y - 11, allowed))
    out.append('<text x="190" y="%d">1 = may attend</text>' % y)
    out.append('<rect x="300" y="%d" width="14" height="14" fill="%s" stroke="#999"/>'
               % (y - 11, blocked))
    out.append('<text x="320" y="%d">0 = blocked</text>' % y)
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


_EXAMPLE_FILES = []


def resolve_example(cfg, name):
    """The one file the example path gives for `name`, as Doxygen finds it, or None."""
    if not _EXAMPLE_FILES:
        for root in cfg["example_roots"]:
            for dirpath, _, files in os.walk(root):
                for f in files:
                    full = os.path.join(dirpath, f)
                    _EXAMPLE_FILES.append((os.path.relpath(full, root).replace(os.sep, "/"), full))
    found = [full for rel, full in _EXAMPLE_FILES if rel == name or rel.endswith("/" + name)]
    return found[0] if len(found) == 1 else None


def snippet_lines(path, tag):
    """First and last line (1-based) of the code between the two '[tag]' markers."""
    marks = [i for i, line in enumerate(read(path).split("\n"), 1) if "[" + tag + "]" in line]
    if len(marks) < 2:
        return None
    return marks[0] + 1, marks[1] - 1


def cmd_filter(cfg, page):
    out = []
    for line in read(page).split("\n"):
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


def nav_html(prev, nxt, where):
    def link(target, cls, text):
        return '<a class="%s" href="%s">%s</a>' % (cls, target, html.escape(text))
    return ('<div class="tfm-chapter-nav tfm-chapter-nav-%s">%s%s%s</div>\n'
            % (where, link(prev[0], "tfm-prev", "\u2190 " + prev[1]),
               link("index.html#chapter_map", "tfm-up", "All chapters"),
               link(nxt[0], "tfm-next", nxt[1] + " \u2192")))


def add_chapter_navigation(cfg):
    pages = chapter_pages(cfg)
    for k, (number, name, title) in enumerate(pages):
        prev = (pages[k - 1][1], pages[k - 1][2]) if k > 0 else ("index.html", "The book's contents")
        nxt = ((pages[k + 1][1], pages[k + 1][2]) if k + 1 < len(pages)
               else ("annotated.html", "The code: classes and files"))
        path = os.path.join(cfg["html_dir"], name)
        text = read(path)
        text = re.sub(r'<div class="tfm-chapter-nav[^"]*">.*?</div>\n', "", text)
        text = text.replace('<div class="contents">\n', '<div class="contents">\n'
                            + nav_html(prev, nxt, "top"), 1)
        i = text.rfind("</div><!-- contents -->")
        if i < 0:
            sys.exit("book.py: no end of contents in %s" % path)
        text = text[:i] + nav_html(prev, nxt, "bottom") + text[i:]
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


def link_snippet_files(cfg):
    html_dir = cfg["html_dir"]
    sources = source_pages(cfg)
    missing = set()
    caption = re.compile(r'<div class="tfm-snippet-file">(.*?)</div>', re.S)
    for name in os.listdir(html_dir):
        if not name.endswith(".html"):
            continue
        path = os.path.join(html_dir, name)
        text = read(path)
        if "tfm-snippet-file" not in text:
            continue

        def fix(m):
            where = html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip()
            file, _, span = where.partition(":")
            page = find_source_page(sources, file)
            if not page:
                missing.add(file)
                return m.group(0)
            first = span.split("-")[0] if span else ""
            href = page + ("#l%05d" % int(first) if first.isdigit() else "")
            label = file + (", lines " + span.replace("-", "\u2013") if span else "")
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


def build_search_index(cfg):
    html_dir = cfg["html_dir"]
    chapters = {name for _, name, _ in chapter_pages(cfg)}
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
            body = " ".join(" ".join(words).split())
            if body or heading:
                sections.append({"a": anchor, "h": heading, "x": body})
        if not sections:
            continue
        kind = ("chapter" if name in chapters else "page" if name == "index.html" or
                name.startswith("ch") else "code")
        entries.append({"p": name, "t": title, "k": kind, "s": sections})
    data = json.dumps(entries, ensure_ascii=False, separators=(",", ":"))
    write_if_changed(os.path.join(html_dir, "book-search-index.js"),
                     "/* Generated by docs/book.py finish: the text of the book's pages. */\n"
                     "window.TFM_BOOK_INDEX = " + data + ";\n")


def add_search_script(cfg):
    """Every page loads book-search.js: Enter in the search box searches the text."""
    tag = '<script type="text/javascript" src="book-search.js"></script>\n'
    html_dir = cfg["html_dir"]
    for name in os.listdir(html_dir):
        if not name.endswith(".html"):
            continue
        path = os.path.join(html_dir, name)
        text = read(path)
        if "book-search.js" in text or "</head>" not in text:
            continue
        write_if_changed(path, text.replace("</head>", tag + "</head>", 1))


def cmd_finish(cfg):
    add_chapter_navigation(cfg)
    missing = link_snippet_files(cfg)
    if missing:
        sys.exit("book.py: no source page for %s (is the file in the book's INPUT?)"
                 % ", ".join(sorted(missing)))
    copy_mathjax(cfg)
    build_search_index(cfg)
    add_search_script(cfg)


# ------------------------------------------------------------------------------------------------
# check

class Blocks(HTMLParser):
    """Collects the text of every code fragment (div.fragment) and every program-output block
    (pre.tfm-output), and the prose outside links, code and output."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # (tag, kind)
        self.fragments, self.outputs, self.prose = [], [], []
        self.current = None
        self.images = 0

    def kind_of(self, tag, attrs):
        cls = (dict(attrs).get("class") or "").split()
        if tag == "div" and "fragment" in cls:
            return "fragment"
        if tag == "pre" and "tfm-output" in cls:
            return "output"
        if tag in ("a", "code", "pre", "script", "style", "tt", "title", "head"):
            return "nolink"
        if tag == "div" and ("title" in cls or "headertitle" in cls):
            return "nolink"  # the page's own title
        if tag == "div" and ("image" in cls or "dotgraph" in cls):
            self.images += 1
        return ""

    def handle_starttag(self, tag, attrs):
        kind = self.kind_of(tag, attrs)
        if kind in ("fragment", "output") and self.current is None:
            self.current = (kind, [], len(self.stack))
        self.stack.append((tag, kind))

    def handle_startendtag(self, tag, attrs):
        self.kind_of(tag, attrs)

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
        if self.current and len(self.stack) <= self.current[2]:
            kind, parts, _ = self.current
            (self.fragments if kind == "fragment" else self.outputs).append("".join(parts))
            self.current = None

    def handle_data(self, data):
        if self.current:
            self.current[1].append(data)
        elif not any(k for _, k in self.stack):
            self.prose.append(data)


def normalise(text):
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))


def cmd_check(cfg):
    problems = []
    html_dir = cfg["html_dir"]

    # 1. The book carries its own MathJax: a copied book still renders its formulas.
    mathjax = os.path.join(html_dir, "mathjax")
    if os.path.islink(mathjax):
        problems.append("html/mathjax is a symbolic link; a copied book would show raw TeX")
    elif not os.path.isfile(os.path.join(mathjax, "MathJax.js")):
        problems.append("html/mathjax/MathJax.js is missing")

    # 2. Program output is plain text, never highlighted as code.
    outputs = {}
    for name in os.listdir(cfg["output_dir"]):
        if name.endswith(".txt"):
            text = normalise(read(os.path.join(cfg["output_dir"], name)))
            if text:
                outputs[name] = text
    for ch in cfg["chapters"]:
        for n, line in enumerate(read(ch["page"]).split("\n"), 1):
            m = re.search(r"\\(include|includelineno|verbinclude|snippet)\s+(\S+\.txt)\b", line)
            if m and m.group(2) in outputs:
                problems.append("%s:%d: \\%s %s shows program output as code; write "
                                "\\programoutput{%s}" % (ch["page"], n, m.group(1), m.group(2),
                                                         m.group(2)[:-4]))

    chapters = chapter_pages(cfg)
    if len(chapters) != len(cfg["chapters"]):
        problems.append("only %d of the %d chapter pages were written"
                        % (len(chapters), len(cfg["chapters"])))
    pages = [n for n in os.listdir(html_dir) if n.endswith(".html")
             and not n.endswith("_source.html")]
    chapter_names = {name for _, name, _ in chapters}
    for name in pages:
        text = read(os.path.join(html_dir, name))
        blocks = Blocks()
        blocks.feed(text)
        for fragment in blocks.fragments:
            frag = normalise(fragment)
            for out_name, out in outputs.items():
                head = "\n".join(out.split("\n")[:3])
                if len(head) > 20 and head in frag:
                    problems.append("%s: the output %s is shown as a code fragment (highlighted "
                                    "as C++); use \\programoutput" % (name, out_name))
        prose = "".join(blocks.prose)
        # Markup that was meant to format, printed as text.
        for m in re.finditer(r"</?(em|b|strong|code|i)>", prose):
            problems.append("%s: the markup %s is printed as text: %r"
                            % (name, m.group(0), prose[max(0, m.start() - 40):m.end() + 40]))
        if name in chapter_names or name == "index.html":
            # 3. Every mention of a chapter is a link.
            for m in re.finditer(r"\b[Cc]hapters? (\d\d)\b", prose):
                problems.append("%s: \"%s\" is not a link (write \\ref ch%s \"chapter %s\")"
                                % (name, m.group(0), m.group(1), m.group(1)))
        if name in chapter_names:
            # 4. Previous and next links, at the top and at the bottom.
            for where in ("top", "bottom"):
                m = re.search(r'<div class="tfm-chapter-nav tfm-chapter-nav-%s">(.*?)</div>'
                              % where, text, re.S)
                if not m:
                    problems.append("%s: no previous/next links at the %s" % (name, where))
                    continue
                for cls in ("tfm-prev", "tfm-next"):
                    link = re.search(r'<a class="%s" href="([^"#]+)' % cls, m.group(1))
                    if not link or not os.path.exists(os.path.join(html_dir, link.group(1))):
                        problems.append("%s: the %s link at the %s is missing or broken"
                                        % (name, cls[4:], where))
            # 5. At least one figure.
            if blocks.images == 0:
                problems.append("%s: the chapter has no figure (\\image or \\dot)" % name)
            # 6. Its output, as plain text.
            if not blocks.outputs:
                problems.append("%s: the chapter shows no program output (\\programoutput)" % name)
        # 7. Snippet captions that found no source page.
        if re.search(r'<div class="tfm-snippet-file">(?!<a )', text):
            problems.append("%s: a snippet's file name is not linked to its source" % name)

    # 8. The full-text search covers every chapter.
    index = os.path.join(html_dir, "book-search-index.js")
    if not os.path.exists(index):
        problems.append("the full-text search index book-search-index.js is missing")
    else:
        data = read(index)
        for _, name, _ in chapters:
            if '"p":"%s"' % name not in data:
                problems.append("the full-text search does not cover %s" % name)

    if problems:
        sys.stderr.write("The book breaks %d of its rules (docs/book.py check):\n" % len(problems))
        for p in problems:
            sys.stderr.write("  " + p + "\n")
        sys.exit(1)
    print("book.py check: %d chapter pages with previous/next links, figures and plain-text "
          "output; MathJax copied; search index written" % len(chapters))


def main(argv):
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
