"""The rules a built book must keep (`book.py check CONFIG` runs them; docs/test_book_check.py
shows that each one fails on a book with the defect).

Each rule is a function `rule(book) -> [problem, ...]`; `book` is a Book, the built HTML read once.
The sizes below are what a reader's browser shows at 1280 x 900 (Chromium, the book's CSS,
Doxygen's 380-px tree view on the left), measured; see COLUMN_PX.
"""
import html
import os
import re
import xml.etree.ElementTree as ElementTree
from html.parser import HTMLParser

import book

# The width of the text column at 1280 x 900 (div.contents, measured in Chromium). A figure wider
# than this is shrunk to it, so its labels shrink by the same factor.
COLUMN_PX = 859
# The smallest label a figure may show at that width, in CSS pixels.
MIN_LABEL_PX = 11
# The longest output line that fits the output box at 1280 x 900 without scrolling sideways
# (9pt monospace, 7.2 px a character, 835 px inside the box).
MAX_OUTPUT_CHARS = 115

# ------------------------------------------------------------------------------------------------
# The book as the rules see it


class Blocks(HTMLParser):
    """Collects the text of every code fragment (div.fragment) and every program-output block
    (pre.tfm-output), the prose outside links, code and output, the images, and the sections
    (heading, whether anything is under it)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # (tag, kind)
        self.fragments, self.outputs, self.prose = [], [], []
        self.results = []  # the text of every results table, cells separated by spaces
        self.current = None
        self.images = 0
        self.figures = []  # (tag, attributes) of img, object, iframe, embed, svg
        self.sections = []  # [heading text, level, words and figures under it]
        self.heading = None

    def kind_of(self, tag, attrs):
        cls = (dict(attrs).get("class") or "").split()
        if tag == "div" and "fragment" in cls:
            return "fragment"
        if tag == "pre" and "tfm-output" in cls:
            return "output"
        if tag == "table" and "tfm-results" in cls:
            return "results"  # a results file's table (\\resultstable): printed, not prose
        if tag == "div" and "tfm-output" in cls:
            return "nolink"  # an output block: its fold's summary line is not prose
        if tag == "div" and "tfm-snippet-file" in cls:
            return "nolink"  # a quotation's file and lines
        if tag in ("a", "code", "pre", "script", "style", "tt", "title", "head"):
            return "nolink"
        if tag == "div" and ("title" in cls or "headertitle" in cls or "tfm-chapter-nav" in cls):
            return "nolink"  # the page's own title, the previous/next links
        if tag == "div" and ("image" in cls or "dotgraph" in cls):
            self.images += 1
        return ""

    def note_content(self, amount):
        if self.sections and self.heading is None:
            self.sections[-1][2] += amount

    def handle_starttag(self, tag, attrs):
        kind = self.kind_of(tag, attrs)
        if tag in ("img", "object", "iframe", "embed", "svg"):
            self.figures.append((tag, dict(attrs)))
            self.note_content(1)
        if kind in ("fragment", "output", "results"):
            self.note_content(1)
        if kind in ("fragment", "output", "results") and self.current is None:
            self.current = (kind, [], len(self.stack))
        if tag in ("td", "th", "tr") and self.current:
            self.current[1].append(" ")
        if re.fullmatch(r"h[1-4]", tag) and self.current is None:
            self.heading = []
        if tag not in ("img", "br", "hr", "input", "meta", "link", "embed", "wbr", "col"):
            self.stack.append((tag, kind))

    def handle_startendtag(self, tag, attrs):
        self.kind_of(tag, attrs)
        if tag in ("img", "object", "iframe", "embed", "svg"):
            self.figures.append((tag, dict(attrs)))
            self.note_content(1)

    def handle_endtag(self, tag):
        if re.fullmatch(r"h[1-4]", tag) and self.heading is not None:
            self.sections.append([" ".join("".join(self.heading).split()), int(tag[1]), 0])
            self.heading = None
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
        if self.current and len(self.stack) <= self.current[2]:
            kind, parts, _ = self.current
            {"fragment": self.fragments, "output": self.outputs,
             "results": self.results}[kind].append("".join(parts))
            self.current = None

    def handle_data(self, data):
        if self.heading is not None:
            self.heading.append(data)
            return
        if self.current:
            self.current[1].append(data)
        elif not any(k for _, k in self.stack):
            self.prose.append(data)
            self.note_content(len(data.split()))


def contents_of(text):
    """The page's div.contents: what Doxygen wrote from the page's source, without the header,
    the tree view and the footer."""
    start = text.find('<div class="contents">')
    end = text.rfind("</div><!-- contents -->")
    return text[start:end] if start >= 0 and end > start else ""


class Page:
    def __init__(self, name, path, source):
        self.name = name
        self.text = book.read(path)
        self.source = source  # the Markdown page, or None for a page of the code
        self.blocks = Blocks()
        self.blocks.feed(contents_of(self.text))


class Book:
    def __init__(self, cfg):
        self.cfg = cfg
        self.html_dir = cfg["html_dir"]
        self.chapters = book.chapter_pages(cfg)
        self.chapter_names = {name for _, name, _ in self.chapters}
        self.readers = book.reader_pages(cfg)
        self.pages = {}
        for name in sorted(os.listdir(self.html_dir)):
            if name.endswith(".html") and not name.endswith("_source.html"):
                self.pages[name] = Page(name, os.path.join(self.html_dir, name),
                                        self.readers.get(name))
        self.outputs = {}  # name.txt -> its text, normalised
        for name in os.listdir(cfg["output_dir"]):
            if name.endswith(".txt"):
                text = normalise(book.read(os.path.join(cfg["output_dir"], name)))
                if text:
                    self.outputs[name] = text

    def reader_pages(self):
        return [p for p in self.pages.values() if p.source]


def normalise(text):
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))


# ------------------------------------------------------------------------------------------------
# Rules kept from the first book: MathJax, output as text, links, navigation, search


def rule_mathjax_copied(bk):
    """The book carries its own MathJax: a copied book still renders its formulas."""
    mathjax = os.path.join(bk.html_dir, "mathjax")
    if os.path.islink(mathjax):
        return ["html/mathjax is a symbolic link; a copied book would show raw TeX"]
    if not os.path.isfile(os.path.join(mathjax, "MathJax.js")):
        return ["html/mathjax/MathJax.js is missing"]
    return []


def rule_output_as_text(bk):
    """Program output is plain text, never highlighted as code."""
    problems = []
    for page in bk.reader_pages():
        for n, line in enumerate(book.doxygen_text(page.source, bk.cfg).split("\n"), 1):
            m = re.search(r"\\(include|includelineno|verbinclude|snippet)\s+(\S+\.txt)\b", line)
            if m and m.group(2) in bk.outputs:
                problems.append("%s:%d: \\%s %s shows program output as code; write "
                                "\\programoutput{%s}" % (page.source, n, m.group(1), m.group(2),
                                                         m.group(2)[:-4]))
    for page in bk.pages.values():
        for fragment in page.blocks.fragments:
            frag = normalise(fragment)
            for out_name, out in bk.outputs.items():
                head = "\n".join(out.split("\n")[:3])
                if len(head) > 20 and head in frag:
                    problems.append("%s: the output %s is shown as a code fragment (highlighted "
                                    "as C++); use \\programoutput" % (page.name, out_name))
    return problems


def rule_markup_and_links(bk):
    """No markup printed as text; every mention of a chapter is a link."""
    problems = []
    for page in bk.pages.values():
        prose = "".join(page.blocks.prose)
        for m in re.finditer(r"</?(em|b|strong|code|i)>", prose):
            problems.append("%s: the markup %s is printed as text: %r"
                            % (page.name, m.group(0), prose[max(0, m.start() - 40):m.end() + 40]))
        if page.name in bk.chapter_names or page.name == "index.html":
            for m in re.finditer(r"\b[Cc]hapters? (\d\d)\b", prose):
                problems.append("%s: \"%s\" is not a link (write \\ref ch%s \"chapter %s\")"
                                % (page.name, m.group(0), m.group(1), m.group(1)))
        # A C++ file has a source page to link to; a Python file (the PyTorch twin) is named only.
        if re.search(r'<div class="tfm-snippet-file">(?!<a )(?![^<]*\.py\b)', page.text):
            problems.append("%s: a snippet's file name is not linked to its source" % page.name)
    return problems


def rule_chapters_complete(bk):
    """Every chapter page: written, a figure, program output, and in the full-text search."""
    problems = []
    if len(bk.chapters) != len(bk.cfg["chapters"]):
        problems.append("only %d of the %d chapter pages were written"
                        % (len(bk.chapters), len(bk.cfg["chapters"])))
    index = os.path.join(bk.html_dir, "book-search-index.js")
    data = book.read(index) if os.path.exists(index) else None
    if data is None:
        problems.append("the full-text search index book-search-index.js is missing")
    for _, name, _ in bk.chapters:
        page = bk.pages[name]
        if page.blocks.images == 0:
            problems.append("%s: the chapter has no figure (\\image or \\dot)" % name)
        if not page.blocks.outputs:
            problems.append("%s: the chapter shows no program output (\\programoutput)" % name)
        if data is not None and '"p":"%s"' % name not in data:
            problems.append("the full-text search does not cover %s" % name)
    return problems


# ------------------------------------------------------------------------------------------------
# Figures: every one scales to the column, with labels a reader can read


def svg_root(path):
    try:
        return ElementTree.parse(path).getroot()
    except (ElementTree.ParseError, OSError):
        return None


def length_px(value):
    """'785pt' -> 1046.7, '1200' -> 1200, '100%' -> None."""
    m = re.fullmatch(r"\s*([\d.]+)\s*(px|pt)?\s*", value or "")
    if not m:
        return None
    return float(m.group(1)) * (4.0 / 3.0 if m.group(2) == "pt" else 1.0)


def view_box(root):
    parts = (root.get("viewBox") or "").replace(",", " ").split()
    return [float(p) for p in parts] if len(parts) == 4 else None


def smallest_font(root):
    """The smallest font-size (in the SVG's own units) of any text, inherited as SVG does."""
    smallest = [None]

    def walk(element, inherited):
        size = inherited
        own = element.get("font-size")
        style = re.search(r"font-size:\s*([\d.]+)", element.get("style") or "")
        if style:
            own = style.group(1)
        if own and re.fullmatch(r"[\d.]+(px)?", own):
            size = float(own.replace("px", ""))
        if element.tag.split("}")[-1] == "text" and "".join(element.itertext()).strip():
            if smallest[0] is None or size < smallest[0]:
                smallest[0] = size
        for child in element:
            walk(child, size)

    walk(root, 16.0)  # the browser's default
    return smallest[0]


def rule_svg_view_box(bk):
    """Every SVG of the book has a viewBox: without one, a picture shown smaller is cut, not
    shrunk."""
    problems = []
    for name in sorted(os.listdir(bk.html_dir)):
        if name.endswith(".svg"):
            root = svg_root(os.path.join(bk.html_dir, name))
            if root is not None and view_box(root) is None:
                problems.append("%s has no viewBox: shown in a narrower column it is cut off "
                                "(write the SVG with viewBox=\"0 0 width height\")" % name)
    for page in bk.reader_pages():
        for tag, attrs in page.blocks.figures:
            if tag == "svg" and "viewbox" not in attrs:
                problems.append("%s: an inline <svg> without a viewBox" % page.name)
    return problems


def displayed_width(bk, tag, attrs):
    """(the width a figure is shown at in the column at 1280 px, its SVG root or None, whether
    it scales), under the book's CSS (max-width: 100% for images)."""
    src = attrs.get("src") or attrs.get("data") or ""
    path = os.path.join(bk.html_dir, src)
    root = svg_root(path) if src.endswith(".svg") and os.path.exists(path) else None
    natural = None
    if root is not None:
        natural = length_px(root.get("width"))
        if natural is None and view_box(root):
            natural = view_box(root)[2]
    style = re.search(r"width:\s*([\d.]+)(%|px)", attrs.get("style") or "")
    declared = None
    if style:
        declared = float(style.group(1)) * (COLUMN_PX / 100.0 if style.group(2) == "%" else 1)
    elif attrs.get("width"):
        w = attrs["width"]
        declared = float(w[:-1]) * COLUMN_PX / 100.0 if w.endswith("%") else length_px(w)
    width = declared if declared is not None else natural
    scales = tag in ("img", "object") and (root is None or view_box(root) is not None)
    if tag == "svg":
        width, root, scales = length_px(attrs.get("width")), None, "viewbox" in attrs
    if width is not None and scales:
        width = min(width, COLUMN_PX)
    return width, root, scales


def rule_figures_fit(bk):
    """No figure is wider than the column at 1280 px, and its labels stay at least
    MIN_LABEL_PX tall there."""
    problems = []
    for page in bk.reader_pages():
        for tag, attrs in page.blocks.figures:
            src = attrs.get("src") or attrs.get("data") or "inline <svg>"
            width, root, scales = displayed_width(bk, tag, attrs)
            if width is not None and width > COLUMN_PX + 0.5:
                problems.append("%s: %s is %d px wide and cannot shrink (a <%s>%s): wider than "
                                "the %d-px column at 1280 px" % (
                                    page.name, src, width, tag,
                                    "" if tag == "iframe" else " without a viewBox", COLUMN_PX))
                continue
            if root is None or width is None or not view_box(root):
                continue
            font = smallest_font(root)
            if font is None:
                continue
            shown = font * width / view_box(root)[2]
            if shown < MIN_LABEL_PX - 0.05:
                problems.append("%s: %s shows its smallest labels at %.1f px at 1280 px (at "
                                "least %d: draw it narrower or its text larger)"
                                % (page.name, src, shown, MIN_LABEL_PX))
    return problems


# ------------------------------------------------------------------------------------------------
# Output, leftovers, empty sections


def rule_output_lines(bk):
    """No output line is wider than the output box at 1280 px."""
    problems = []
    for page in bk.reader_pages():
        for block in page.blocks.outputs:
            for line in block.split("\n"):
                if len(line) > MAX_OUTPUT_CHARS:
                    problems.append("%s: an output line of %d characters (at most %d fit the "
                                    "column): %r" % (page.name, len(line), MAX_OUTPUT_CHARS,
                                                     line[:60] + "..."))
    return problems


def rule_no_author_notes(bk):
    """A reader's page carries no notes for the project's authors or developers."""
    problems = []
    for page in bk.reader_pages():
        prose = " ".join(page.blocks.prose)
        for m in re.finditer(r"\bfor (authors|developers)\b", prose, re.I):
            problems.append("%s: a note for %s in a reader's page: %r" % (
                page.name, m.group(1).lower(), prose[max(0, m.start() - 20):m.end() + 40]))
    return problems


def rule_no_empty_sections(bk):
    """Every section of a reader's page has something under it before the next heading."""
    problems = []
    for page in bk.reader_pages():
        sections = page.blocks.sections
        for k, (title, level, amount) in enumerate(sections):
            nested = k + 1 < len(sections) and sections[k + 1][1] > level
            if amount == 0 and not nested:
                problems.append("%s: the section \"%s\" is empty" % (page.name, title))
    return problems


def rule_try_it(bk):
    """Every chapter ends with a summary and 3 to 5 exercises ("Try it")."""
    problems = []
    for _, name, _ in bk.chapters:
        page = bk.pages[name]
        titles = [t for t, _, _ in page.blocks.sections]
        if "Summary" not in titles:
            problems.append("%s: no \"Summary\" section" % name)
        if not titles or titles[-1] != "Try it":
            problems.append("%s: the chapter does not end with a \"Try it\" section" % name)
            continue
        # `./tutorial chapter N ...` (run by book.py try-it) or a longer run (`./build/bin/...`).
        count = sum(1 for _, text in book.try_it_items(page.source) if "`./" in text)
        if not 3 <= count <= 5:
            problems.append("%s: \"Try it\" has %d exercises with a command (3 to 5)"
                            % (name, count))
    return problems


def project_pages(bk):
    """The Markdown sources of the project pages (projects/NAME/README.md) of the book's INPUT."""
    projects = os.path.join(os.path.realpath(bk.cfg["source_dir"]), "projects")
    return sorted(source for source in bk.readers.values()
                  if os.path.basename(source) == "README.md"
                  and os.path.dirname(os.path.dirname(os.path.realpath(source))) == projects)


def rule_try_it_answered(bk):
    """Every "Try it" exercise of a chapter or of a project has an answer, in a fold under it; the
    answer of a `./tutorial chapter N ...` exercise shows what that command printed (chNN_try_K,
    which the book's build writes), so that its numbers come from the run. The book's build does
    not run a project's commands (`./build/bin/NAME ...`): their answers show no chNN_try_K."""
    problems = []
    sources = [bk.pages[name].source for _, name, _ in bk.chapters] + project_pages(bk)
    for source in sources:
        items = book.try_it_answers(source)
        for k, (line, text, answer) in enumerate(items, 1):
            where = "%s:%d" % (source, line)
            if not answer:
                problems.append("%s: the exercise has no answer (a fold %s ... %s under it)"
                                % (where, book.ANSWER_OPEN, book.ANSWER_CLOSE))
                continue
            m = book.TRY_IT_COMMAND.search(text)
            if m:
                name = book.try_it_output_stem(int(m.group(1)), k)
                if not re.search(r"\\programoutput(?:folded)?\{%s\}" % name, answer):
                    problems.append("%s: the answer does not show what the command printed: "
                                    "add \\programoutputfolded{%s}" % (where, name))
    return problems


# ------------------------------------------------------------------------------------------------
# Numbers: a page says only the numbers its run printed
#
# On a page that shows program output, every number in the prose (text, tables, captions and
# formulas; not code, not the output itself, not link texts) must be one of:
#   - printed by the run: in an output shown on the page, or in any output of the same chapter
#     (ch04_*.txt); exactly, or as that number rounded (22.63 printed, "22.6" in the text);
#   - a constant of the code the page quotes: a literal of a file it \snippet's or \include's, or
#     of a source or test file it names (`tests/test_attention.cpp`), compared by value;
#   - a small count (0 to 12: "two sentences", "6 + 6 layers", "step 2");
#   - after a word that makes it a name, not a quantity: section 3.2.2, equation (1),
#     figure 1, reference 000, Debian 12, C++17, arXiv:1706.03762;
#   - a constant of the paper or of the format (PAPER_CONSTANTS below, each with its reason).
# And no duration in words ("about five minutes"): a time is measured, so it comes from a run.

PAPER_CONSTANTS = {
    "512": "d_model of the paper's base model",
    "2048": "d_ff of the base model",
    "64": "d_k = d_v = 512 / 8",
    "10000": "the positional encoding's base, and reference 000's vocabulary",
    "0.1": "dropout and label smoothing of the paper",
    "4000": "the paper's warm-up steps",
    "0.9": "Adam's beta_1 in the paper",
    "0.98": "Adam's beta_2 in the paper",
    "1e-9": "Adam's epsilon in the paper, and the mask's -1e9",
    "2017": "the paper's year",
    "100": "per cent",
    "32": "the bits of an fp32 float",
    "23": "fp32's fraction bits",
    "126": "fp32's (and bf16's) smallest normal number is 2^-126",
    "3.4e38": "fp32's (and bf16's) largest number, about 3.4e38",
    "65504": "fp16's largest number",
    "14": "fp16's smallest normal number is 2^-14",
}
NAME_BEFORE = re.compile(r"(?:\b(?:[Ss]ections?|[Ee]quations?|[Ff]igures?|[Tt]ables?|[Rr]eferences?"
                         r"|Debian|PyTorch|OpenBLAS|Doxygen|MathJax|Python|[Cc]hapters?|[Ll]ines?)"
                         r"\s*\(?|C\+\+|arXiv:|et al\.\s*\(?|published BLEU\s)$")
NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:e([-+]?\d+))?(?![\w])")
DURATION_IN_WORDS = re.compile(
    r"\b(one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty|forty|fifty|"
    r"sixty|a hundred|half an?)\s+(seconds?|minutes?|hours?)\b", re.I)
LITERAL = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def prose_numbers(text):
    """[(the number as written, its value, its decimals, the text before it)] of prose, with
    TeX's 10^{-4} and 5.9 \\times 10^{-3} read as numbers."""
    text = book.plain_formulas(text)
    text = re.sub(r"(\d+(?:\.\d+)?)\s*[×·]\s*10\^\(?([-+−]?\d+)\)?", r"\1e\2", text)
    text = re.sub(r"(?<![\d.])10\^\(?([-+−]?\d+)\)?", r"1e\1", text).replace("−", "-")
    found = []
    for m in NUMBER.finditer(text):
        written = m.group(0)
        value = float(written.replace(",", ""))
        decimals = len(m.group(2)) - 1 if m.group(2) else 0
        found.append((written, value, decimals, text[max(0, m.start() - 24):m.start()]))
    return found


def values_in(text):
    """Every number a text prints, as values (thousands separators removed)."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    out = set()
    for m in LITERAL.finditer(text):
        try:
            out.add(float(m.group(0)))
        except ValueError:
            pass
    return out


def rounds_to(value, decimals, printed):
    return any(abs(round(p, decimals) - value) < 10 ** -(decimals + 3) for p in printed)


def code_files_of(bk, page):
    """The files whose literals count as the page's constants: the ones it quotes, and the
    source, test and script files it names."""
    source = book.doxygen_text(page.source, bk.cfg)
    files = set()
    for m in re.finditer(r"\\(?:snippet|include)\S*\s+(\S+)", source):
        path = book.resolve_example(bk.cfg, m.group(1))
        if path:
            files.add(path)
    for m in re.finditer(r"\b([\w/.-]+\.(?:cpp|hpp|py))\b", source):
        for base in ("", "common/include", "common/src", "chapters", "tests", "tools",
                     os.path.relpath(os.path.dirname(page.source), bk.cfg["source_dir"])):
            path = os.path.join(bk.cfg["source_dir"], base, m.group(1))
            if os.path.isfile(path):
                files.add(path)
    chapter_dir = os.path.dirname(page.source)
    if os.path.isfile(os.path.join(chapter_dir, "main.cpp")):
        files.add(os.path.join(chapter_dir, "main.cpp"))
    return files


def printed_by(bk, page):
    """The outputs a page's numbers may come from: the ones it shows, and all outputs of its
    chapter (ch04_*.txt)."""
    texts = list(page.blocks.outputs) + list(page.blocks.results)
    stem = None
    for ch in bk.cfg["chapters"]:
        if page.name == "ch%s.html" % ch["number"]:
            stem = "ch%s_" % ch["number"]
    for name, text in bk.outputs.items():
        if stem and name.startswith(stem):
            texts.append(text)
    return texts


def rule_numbers_from_the_run(bk):
    problems = []
    for page in bk.reader_pages():
        if not page.blocks.outputs and not page.blocks.results:
            continue  # a page without a run: nothing to compare with
        printed = set()
        for text in printed_by(bk, page):
            printed |= values_in(text)
        constants = set()
        for path in code_files_of(bk, page):
            constants |= values_in(book.read(path))
        prose = " ".join(page.blocks.prose)
        for m in DURATION_IN_WORDS.finditer(prose):
            problems.append("%s: a time in words, %r: a time comes from a run; print it, or "
                            "leave it out" % (page.name, m.group(0)))
        for written, value, decimals, before in prose_numbers(prose):
            plain = written.replace(",", "")
            if (value.is_integer() and 0 <= value <= 12) or NAME_BEFORE.search(before):
                continue
            if plain in PAPER_CONSTANTS or ("%g" % value) in PAPER_CONSTANTS:
                continue
            if value in printed or value in constants:
                continue
            if decimals and rounds_to(value, decimals, printed):
                continue
            if "e" in plain and any(abs(p - value) <= abs(value) * 0.05 for p in printed):
                continue  # 3e-5 for a printed 2.96e-05
            problems.append("%s: the number %s is not printed by the run the page shows (nor a "
                            "constant of its code or of the paper): %r"
                            % (page.name, written, (before + written)[-50:]))
    return problems


def rule_markers_quoted(bk):
    """Every `// [tag]` marker in the example files is quoted by some page: an unquoted one is a
    leftover that tells the reader of the code nothing."""
    quoted = set()
    for source in bk.readers.values():
        for line in book.doxygen_text(source, bk.cfg).split("\n"):
            m = book.SNIPPET.match(line)
            path = m and book.resolve_example(bk.cfg, m.group(2))
            if path:
                quoted.add((os.path.realpath(path), m.group(3)))
    problems = []
    for root in bk.cfg["example_roots"]:
        for dirpath, _, files in os.walk(root):
            for f in sorted(files):
                if not f.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(dirpath, f)
                for tag in sorted(book.markers(path)):
                    if (os.path.realpath(path), tag) not in quoted:
                        problems.append("%s: the marker [%s] is quoted by no page; quote it or "
                                        "remove it" % (os.path.relpath(path, bk.cfg["source_dir"]),
                                                       tag))
    return problems


# ------------------------------------------------------------------------------------------------
# What a reader trips over: a placeholder, a table as wrapped text, a list cut from its sentence,
# code wider than its column, a page without a way on, a broken link, a figure taller than the screen


def rule_no_placeholder_pages(bk):
    """No page only says that it is not written: a reader finds it in the tree and in search."""
    problems = []
    for page in bk.pages.values():
        prose = " ".join(" ".join(page.blocks.prose).split())
        m = PLACEHOLDER.search(prose)
        if m:
            problems.append("%s: a placeholder, %r: write the page, or leave it and its links out"
                            % (page.name, prose[max(0, m.start() - 40):m.end() + 20]))
    return problems


PLACEHOLDER = re.compile(r"\b(?:is|are) not (?:yet )?written(?: yet)?\b|\bnot written yet\b|"
                         r"\bto be written\b|\bcoming soon\b|\bTODO\b|\bTBD\b", re.I)


def shown_as_text(page):
    """The output files a page shows as plain text (\\programoutput, \\programoutputfolded)."""
    return re.findall(r'<div class="tfm-output" data-output="([^"]+)">', page.text)


def rule_tables_as_tables(bk):
    """A table in a program's output is shown as a table when it would wrap (its rows cut onto
    "↪" lines, its columns no longer lined up), and every results file is shown with its tables
    as tables (\\resultstable), as chapter 11's is."""
    problems = []
    for page in bk.reader_pages():
        for name in shown_as_text(page):
            text = bk.outputs.get(name)
            if text is None:
                continue
            lines = text.split("\n")
            tables = [s for s in book.book_tables.segments(text) if s[0] == "table"]
            wrapped = sum(1 for t in tables for i in t[3] if len(lines[i]) > MAX_OUTPUT_CHARS)
            if wrapped:
                problems.append("%s: %s shows a table as text with %d rows wrapped onto \u21aa "
                                "lines; write \\resultstable{%s}" % (page.name, name, wrapped, name[:-4]))
            elif tables and RESULTS_FILE.match(name):
                problems.append("%s: the results file %s is shown as text; write \\resultstable{%s} "
                                "to show its %d tables as tables" % (page.name, name, name[:-4],
                                                                      len(tables)))
    return problems


RESULTS_FILE = re.compile(r"^(recorded_|results_)")


def paragraph_before(text, position):
    """The text of the paragraph that ends right before `position` of a page's HTML, or None when
    something else (a heading, a table, a list item) comes first."""
    before = text[:position].rstrip()
    if before.endswith("</p>"):
        before = before[:-4]
    elif re.search(r"<[^>]+>$", before):
        return None
    starts = list(re.finditer(r"<p\b[^>]*>", before))  # Doxygen writes "<p >"
    if not starts or re.search(r"</(?:h\d|li|table|div|pre|ol|ul)>", before[starts[-1].end():]):
        return None
    return html.unescape(re.sub(r"<[^>]+>", "", before[starts[-1].end():])).strip()


def rule_lists_after_whole_sentences(bk):
    """A list follows a paragraph that ends its sentence (".", ":", "?", "!"). A paragraph that
    stops mid-sentence before a list is most often a Markdown accident: a source line that begins
    with "100." becomes item 100 of a numbered list."""
    problems = []
    for page in bk.reader_pages():
        contents = contents_of(page.text)
        for m in re.finditer(r"<(ol|ul)\b[^>]*>", contents):
            paragraph = paragraph_before(contents, m.start())
            # A display formula (\[ ... \]) may close the paragraph: it ends its sentence.
            if paragraph and not re.search(r"(?:[.:?!)\u2026]|\\\])$", paragraph):
                item = re.sub(r"<[^>]+>", "", contents[m.end():m.end() + 120]).strip()
                start = re.search(r'start="(\d+)"', m.group(0))
                problems.append("%s: a paragraph ends mid-sentence before a list: %r, then %s%r "
                                "(a source line that begins with a number and a dot starts a list)"
                                % (page.name, paragraph[-50:],
                                   "item %s " % start.group(1) if start else "", item[:40]))
    return problems


# Code in a table cell (div.fragment > div.line, Doxygen's 13-px monospace): the width of a
# character and the padding a cell and its fragment take, in CSS pixels at 1280 x 900 (Chromium,
# DejaVu Sans Mono), measured. Doxygen wraps a longer line onto the next, mid-phrase.
CODE_CHAR_PX = 7.83
CODE_CELL_PADDING_PX = 30


def rule_side_by_side_code_fits(bk):
    """Code shown side by side (a table whose cells hold code) fits its column: no line wraps."""
    problems = []
    for page in bk.reader_pages():
        for table in re.finditer(r"<table\b.*?</table>", contents_of(page.text), re.S):
            text = table.group(0)
            if 'class="fragment"' not in text:
                continue
            columns = max(len(re.findall(r"<t[dh]\b", row))
                          for row in re.findall(r"<tr\b.*?</tr>", text, re.S) or [""])
            if columns < 2:
                continue
            fits = int((COLUMN_PX / columns - CODE_CELL_PADDING_PX) / CODE_CHAR_PX)
            lines = [html.unescape(re.sub(r"<[^>]+>", "", line))
                     for line in re.findall(r'<div class="line">(.*?)</div>', text, re.S)]
            wide = [line for line in lines if len(line.rstrip()) > fits]
            if wide:
                longest = max(wide, key=len)
                problems.append("%s: %d code lines of a side-by-side table are wider than its "
                                "%d columns allow (%d characters at 1280 px), and wrap; the "
                                "longest has %d: %r. Show the code one piece under the other"
                                % (page.name, len(wide), columns, fits, len(longest.rstrip()),
                                   longest.strip()[:50]))
    return problems


def rule_reader_pages_navigable(bk):
    """Every page of the reading order (the chapters, the projects, the appendix, any page added
    later) has previous/next links at its top and bottom, and the search ranks it as a reader's
    page, before the code."""
    problems = []
    index = os.path.join(bk.html_dir, "book-search-index.js")
    data = book.read(index) if os.path.exists(index) else ""
    for name, _ in book.reading_order(bk.cfg):
        page = bk.pages.get(name)
        if page is None:
            continue
        for where in ("top", "bottom"):
            m = re.search(r'<div class="tfm-chapter-nav tfm-chapter-nav-%s">(.*?)</div>'
                          % where, page.text, re.S)
            if not m:
                problems.append("%s: no previous/next links at the %s" % (name, where))
                continue
            for cls in ("tfm-prev", "tfm-next"):
                link = re.search(r'<a class="%s" href="([^"#]+)' % cls, m.group(1))
                if not link or not os.path.exists(os.path.join(bk.html_dir, link.group(1))):
                    problems.append("%s: the %s link at the %s is missing or broken"
                                    % (name, cls[4:], where))
        if '"p":"%s","t"' % name in data and not re.search(
                r'"p":"%s","t":"(?:[^"\\]|\\.)*","k":"(?:chapter|page)"' % re.escape(name), data):
            problems.append("the search ranks %s as a page of the code: a reader's page comes "
                            "first" % name)
    return problems


def rule_local_links_exist(bk):
    """Every local link of every page, the code reference's too, reaches a file that exists,
    and an anchor (#name) that the file has."""
    ids = {}

    def anchors_of(name):
        if name not in ids:
            path = os.path.join(bk.html_dir, name)
            text = book.read(path) if os.path.isfile(path) else ""
            ids[name] = set(re.findall(r'\b(?:id|name)="([^"]+)"', text))
        return ids[name]

    problems = []
    for name in sorted(os.listdir(bk.html_dir)):
        if not name.endswith(".html"):
            continue
        text = bk.pages[name].text if name in bk.pages else book.read(os.path.join(bk.html_dir, name))
        broken = set()
        for m in re.finditer(r'\b(?:href|src)="([^"]*)"', text):
            target = html.unescape(m.group(1))
            if re.match(r"^(?:[a-z][a-z0-9+.-]*:|//)", target, re.I) or not target:
                continue  # another scheme (https:, mailto:, javascript:), outside the book
            file, _, anchor = target.partition("#")
            file = file.split("?")[0] or name
            if not os.path.exists(os.path.join(bk.html_dir, file)):
                broken.add(target)
            elif anchor and file.endswith(".html") and anchor not in anchors_of(file):
                broken.add(target)
        for target in sorted(broken):
            problems.append("%s: a link to %s, which does not exist" % (name, target))
    return problems


# The height of a 1280 x 900 screen that shows a page's text: 900 px less Doxygen's title and menu
# bar above (93 px) and its footer bar below (32 px), measured in Chromium.
SCREEN_TEXT_PX = 775


def rule_figures_fit_the_screen(bk):
    """No figure is taller than a 1280 x 900 screen shows: a reader must see it whole."""
    problems = []
    for page in bk.reader_pages():
        for tag, attrs in page.blocks.figures:
            width, root, _ = displayed_width(bk, tag, attrs)
            if root is None or width is None or not view_box(root):
                continue
            box = view_box(root)
            height = width * box[3] / box[2]
            if height > SCREEN_TEXT_PX + 0.5:
                problems.append("%s: %s is %d px tall at 1280 x 900 (at most %d px of text are seen at once): "
                                "draw it wider and lower (a Graphviz diagram: rankdir, ranksep)"
                                % (page.name, attrs.get("src") or attrs.get("data"), height,
                                   SCREEN_TEXT_PX))
    return problems


RULES = [rule_mathjax_copied, rule_output_as_text, rule_markup_and_links, rule_chapters_complete,
         rule_svg_view_box, rule_figures_fit, rule_output_lines, rule_no_author_notes,
         rule_no_empty_sections, rule_try_it, rule_try_it_answered, rule_numbers_from_the_run,
         rule_markers_quoted, rule_no_placeholder_pages, rule_tables_as_tables,
         rule_lists_after_whole_sentences, rule_side_by_side_code_fits,
         rule_reader_pages_navigable, rule_local_links_exist, rule_figures_fit_the_screen]


def check(cfg, rules=None):
    """Every problem the built book has, as a list of lines."""
    bk = Book(cfg)
    problems = []
    for rule in rules or RULES:
        problems += rule(bk)
    return problems
