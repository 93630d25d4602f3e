#!/usr/bin/env python3
"""Every rule of book_check.py fails on a book with its defect, and a book without defects passes.

Builds a one-chapter book by hand (the HTML Doxygen and book.py would write, cut to what the rules
read) in a temporary directory, checks that it passes, then breaks one thing at a time. Standard
library only; ctest runs it (book.check_rules).

    python3 docs/test_book_check.py
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book  # noqa: E402
import book_check  # noqa: E402

PAGE = """# Chapter 01: The example {#ch01}

The run prints 42 and 0.7311.

## Summary

One line.

## Try it

1. `./tutorial chapter 1 --preset tiny`: the sizes shrink.
   <details class="tfm-answer"><summary>Answer</summary>
   Every size is smaller.
   \programoutputfolded{ch01_try_1}
   </details>
2. `./tutorial chapter 1 --set n_heads=1`: one head.
   <details class="tfm-answer"><summary>Answer</summary>
   The error names the sizes.
   \programoutputfolded{ch01_try_2}
   </details>
3. `./tutorial chapter 1 --set d_model=8`: a narrow model.
   <details class="tfm-answer"><summary>Answer</summary>
   \programoutputfolded{ch01_try_3}
   </details>
"""

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200" viewBox="0 0 400 200" '
       'font-size="12"><text x="1" y="12">a label</text></svg>\n')

CONTENTS = """<div class="header"><div class="headertitle"><div class="title">Chapter 01: The example</div></div></div>
<div class="contents">
<div class="tfm-chapter-nav tfm-chapter-nav-top"><a class="tfm-prev" href="index.html">back</a><a class="tfm-up" href="index.html#chapter_map">All chapters</a><a class="tfm-next" href="annotated.html">on</a></div>
<div class="textblock"><p>The run prints 42 and about 0.73.</p>
<div class="image">
<img src="figure.svg" alt=""/>
<div class="caption">
A figure</div></div>
<div class="tfm-output" data-output="ch01_example.txt">
<pre class="tfm-output">value 42
weight 0.7311</pre>
</div>
<h1><a class="anchor" id="autotoc_md1"></a>
Summary</h1>
<p>One line.</p>
<h1><a class="anchor" id="autotoc_md2"></a>
Try it</h1>
<ol><li>the sizes shrink.</li></ol>
</div>
<div class="tfm-chapter-nav tfm-chapter-nav-bottom"><a class="tfm-prev" href="index.html">back</a><a class="tfm-up" href="index.html#chapter_map">All chapters</a><a class="tfm-next" href="annotated.html">on</a></div>
</div><!-- contents -->
"""


def page_html(contents):
    return "<html><head><title>t</title></head><body>\n" + contents + "</body></html>\n"


class BookCheck(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="tfm_book_check_")
        src = os.path.join(self.root, "src")
        chapter = os.path.join(src, "chapters", "01_example")
        self.book_dir = os.path.join(self.root, "book")
        self.html = os.path.join(self.book_dir, "html")
        self.output = os.path.join(self.book_dir, "chapter-output")
        for d in (chapter, os.path.join(self.html, "mathjax"), self.output):
            os.makedirs(d)
        self.page = os.path.join(chapter, "README.md")
        self.write(self.page, PAGE)
        self.write(os.path.join(chapter, "main.cpp"), "int main() { return 0; }\n")
        mainpage = os.path.join(self.book_dir, "mainpage.md")
        self.write(mainpage, "# The book {#mainpage}\n")
        self.write(os.path.join(self.book_dir, "Doxyfile"),
                   'INPUT = "%s" \\\n        "%s"\nOTHER = 1\n' % (mainpage, self.page))
        self.write(os.path.join(self.output, "ch01_example.txt"), "value 42\nweight 0.7311\n")
        self.write(os.path.join(self.html, "mathjax", "MathJax.js"), "//\n")
        self.write(os.path.join(self.html, "figure.svg"), SVG)
        self.write(os.path.join(self.html, "ch01.html"), page_html(CONTENTS))
        self.write(os.path.join(self.html, "index.html"), page_html(
            '<div class="contents"><p>The book.</p><h2><a class="anchor" id="chapter_map"></a>'
            'The chapters</h2><p>One.</p></div><!-- contents -->'))
        self.write(os.path.join(self.html, "annotated.html"), page_html(""))
        self.write(os.path.join(self.html, "book-search-index.js"),
                   'window.TFM_BOOK_INDEX = [{"p":"ch01.html","t":"Chapter 01: The example",'
                   '"k":"chapter","s":[]}];\n')
        self.cfg = {"source_dir": src, "book_dir": self.book_dir, "html_dir": self.html,
                    "output_dir": self.output, "generated_dir": self.book_dir,
                    "example_roots": [os.path.join(src, "chapters")],
                    "chapters": [{"number": "01", "dir": "01_example", "page": self.page}]}
        book.book_forge._FILES.clear()

    def tearDown(self):
        shutil.rmtree(self.root)

    @staticmethod
    def write(path, text):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def change_page(self, old, new):
        path = os.path.join(self.html, "ch01.html")
        text = book.read(path)
        self.assertIn(old, text)
        self.write(path, text.replace(old, new, 1))

    def problems(self):
        return book_check.check(self.cfg)

    def assert_fails(self, *words):
        problems = self.problems()
        self.assertTrue(problems, "the check passed a book with the defect")
        joined = "\n".join(problems)
        for w in words:
            self.assertIn(w, joined)

    def test_a_code_marker_no_page_quotes(self):
        main = os.path.join(self.root, "src", "chapters", "01_example", "main.cpp")
        self.write(main, "// [run]\nint main() { return 0; }\n// [run]\n")
        self.assert_fails("chapters/01_example/main.cpp: the marker [run] is quoted by no page")
        self.write(self.page, book.read(self.page) + "\n\\snippet 01_example/main.cpp run\n")
        self.assertEqual(self.problems(), [])

    def test_a_book_without_defects_passes(self):
        self.assertEqual(self.problems(), [])

    def test_an_svg_without_a_view_box(self):
        self.write(os.path.join(self.html, "figure.svg"), SVG.replace(' viewBox="0 0 400 200"', ""))
        self.assert_fails("figure.svg has no viewBox")

    def test_an_image_wider_than_the_column(self):
        self.change_page('<img src="figure.svg" alt=""/>',
                         '<iframe scrolling="no" frameborder="0" src="figure.svg" width="1200" '
                         'height="200"></iframe>')
        self.assert_fails("figure.svg is 1200 px wide and cannot shrink", "wider than the")

    def test_a_wide_svg_without_a_view_box_cannot_shrink(self):
        self.write(os.path.join(self.html, "figure.svg"),
                   SVG.replace(' viewBox="0 0 400 200"', "").replace('width="400"', 'width="1200"'))
        self.assert_fails("figure.svg is 1200 px wide and cannot shrink")

    def test_labels_too_small_at_the_column_width(self):
        # 1600 units shrunk to the 859-px column: 12-unit labels become 6.4 px.
        self.write(os.path.join(self.html, "figure.svg"),
                   SVG.replace('width="400"', 'width="1600"').replace("0 0 400 200", "0 0 1600 200"))
        self.assert_fails("figure.svg shows its smallest labels at 6.4 px")

    def test_an_output_line_wider_than_the_column(self):
        long_line = "[Trace] " + "x" * 120
        self.change_page("weight 0.7311</pre>", "weight 0.7311\n" + long_line + "</pre>")
        self.assert_fails("an output line of 128 characters")

    def test_a_number_the_run_did_not_print(self):
        self.change_page("<p>The run prints 42 and about 0.73.</p>",
                         "<p>The run prints 42 and about 0.73, in 37 steps.</p>")
        self.assert_fails("the number 37 is not printed")

    def test_a_rounded_number_passes_and_a_wrongly_rounded_one_fails(self):
        self.change_page("about 0.73.", "about 0.74.")
        self.assert_fails("the number 0.74 is not printed")

    def test_a_time_in_words(self):
        self.change_page("<p>The run prints 42", "<p>It takes about five minutes. The run prints 42")
        self.assert_fails("a time in words, 'five minutes'")

    def test_a_note_for_authors(self):
        self.change_page("<p>One line.</p>", "<p>One line. For authors: see the guide.</p>")
        self.assert_fails("a note for authors in a reader's page")

    def test_a_note_for_developers(self):
        self.change_page("<p>One line.</p>", "<p>For developers: the tests.</p>")
        self.assert_fails("a note for developers in a reader's page")

    def test_an_empty_section(self):
        self.change_page("<p>One line.</p>\n", "")
        self.assert_fails('the section "Summary" is empty')

    def test_a_chapter_without_try_it(self):
        self.write(self.page, PAGE[:PAGE.index("## Try it")])
        self.change_page("Try it</h1>", "More</h1>")
        self.assert_fails('does not end with a "Try it" section')

    def test_try_it_with_too_few_exercises(self):
        self.write(self.page, PAGE[:PAGE.index("2. `")])
        self.assert_fails('"Try it" has 1 exercises with a command (3 to 5)')

    def test_output_shown_as_code(self):
        self.change_page('<div class="tfm-output"',
                         '<div class="fragment">value 42\nweight 0.7311\nmore</div>'
                         '<div class="tfm-output"')
        self.write(os.path.join(self.output, "ch01_example.txt"), "value 42\nweight 0.7311\nmore\n")
        self.assert_fails("is shown as a code fragment")

    def test_a_plain_chapter_mention(self):
        self.change_page("<p>One line.</p>", "<p>As chapter 05 shows.</p>")
        self.assert_fails('"chapter 05" is not a link')

    def test_a_page_that_only_says_it_is_not_written(self):
        self.change_page("<p>One line.</p>", "<p>docs/determinism.md is not written yet.</p>")
        self.assert_fails("a placeholder")

    def test_a_wide_table_shown_as_wrapped_text(self):
        rows = "".join("run-%d  %d  --preset vowels-small %s\n" % (k, 100 * k, "--set x=1 " * 10)
                       for k in range(1, 4))
        self.write(os.path.join(self.output, "ch01_example.txt"), "trial  steps  settings\n" + rows)
        self.assert_fails("ch01_example.txt shows a table as text with 3 rows wrapped",
                          "\\resultstable{ch01_example}")

    def test_a_results_file_shown_as_text_and_as_a_table(self):
        record = "trial   steps   accuracy\nfirst     100     0.7311\nsecond    200     0.8125\n"
        self.write(os.path.join(self.output, "recorded_runs.txt"), record)
        self.change_page("<h1>", '<div class="tfm-output" data-output="recorded_runs.txt">'
                         '<pre class="tfm-output">%s</pre></div>\n<h1>' % record)
        self.assert_fails("the results file recorded_runs.txt is shown as text",
                          "\\resultstable{recorded_runs}")
        self.change_page('<div class="tfm-output" data-output="recorded_runs.txt">'
                         '<pre class="tfm-output">%s</pre></div>' % record,
                         book.results_tables_html(record, "recorded_runs.txt"))
        self.assertEqual(self.problems(), [])

    def test_a_paragraph_cut_mid_sentence_by_a_list(self):
        self.change_page("<p>One line.</p>", '<p >It saves a checkpoint every</p>\n<ol start="100">'
                         "\n<li>It tests the last one.</li>\n</ol>")
        self.assert_fails("a paragraph ends mid-sentence before a list: 'It saves a checkpoint "
                          "every', then item 100")

    def test_a_list_after_a_whole_sentence_passes(self):
        self.change_page("<p>One line.</p>", "<p>Two steps:</p>\n<ol>\n<li>one</li>\n</ol>")
        self.assertEqual(self.problems(), [])

    def test_side_by_side_code_wider_than_its_column(self):
        def cell(line):
            return ('<td><div class="fragment"><div class="line">%s</div></div></td>'
                    % line.replace("<", "&lt;"))
        self.change_page("<p>One line.</p>", '<p>One line.</p><table class="markdownTable"><tr>'
                         + cell("  std::vector<float> short_line;")
                         + cell("  " + "auto x = f(a, b);  " * 5) + "</tr></table>")
        self.assert_fails("1 code lines of a side-by-side table are wider than its 2 columns")

    def test_a_reader_page_without_previous_next_links(self):
        self.change_page('<div class="tfm-chapter-nav tfm-chapter-nav-bottom">',
                         '<div class="other">')
        self.assert_fails("ch01.html: no previous/next links at the bottom")

    def test_a_project_page_without_previous_next_links(self):
        # Any page of the book's INPUT is in the reading order, not only the chapters.
        project = os.path.join(self.root, "src", "projects", "x")
        os.makedirs(project)
        self.write(os.path.join(project, "README.md"), "# Project: x {#project_x}\n")
        doxyfile = os.path.join(self.book_dir, "Doxyfile")
        self.write(doxyfile, book.read(doxyfile).replace(
            "\nOTHER", ' \\\n        "%s"\nOTHER' % os.path.join(project, "README.md")))
        self.write(os.path.join(self.html, "project_x.html"), page_html(
            '<div class="contents"><p>A project.</p></div><!-- contents -->'))
        self.assert_fails("project_x.html: no previous/next links at the top")

    def test_search_ranks_a_reader_page_as_code(self):
        index = os.path.join(self.html, "book-search-index.js")
        self.write(index, book.read(index).replace('"k":"chapter"', '"k":"code"'))
        self.assert_fails("the search ranks ch01.html as a page of the code")

    def test_a_link_to_a_page_that_does_not_exist(self):
        self.write(os.path.join(self.html, "bible_8hpp.html"), page_html(
            '<div class="contents"><a href="bible_8cpp.html">bible.cpp</a></div><!-- contents -->'))
        self.assert_fails("bible_8hpp.html: a link to bible_8cpp.html, which does not exist")

    def test_a_link_to_an_anchor_that_does_not_exist(self):
        self.write(os.path.join(self.html, "classX.html"), page_html(
            '<div class="summary"><a href="#nested-classes">Classes</a></div>'))
        self.assert_fails("classX.html: a link to #nested-classes, which does not exist")

    def test_a_figure_taller_than_the_screen(self):
        self.write(os.path.join(self.html, "figure.svg"),
                   SVG.replace('height="200" viewBox="0 0 400 200"',
                               'height="1000" viewBox="0 0 400 1000"'))
        self.assert_fails("figure.svg is 1000 px tall at 1280 x 900")

    def test_an_exercise_without_an_answer(self):
        self.write(self.page, PAGE + "4. `./build/bin/ch01_example --long`: a long run.\n")
        self.assert_fails("README.md:%d: the exercise has no answer" % (PAGE.count("\n") + 1))

    def test_a_project_exercise_without_an_answer(self):
        # A project's page (projects/NAME/README.md, plain Doxygen Markdown) is held to it too.
        project = os.path.join(self.root, "src", "projects", "x")
        os.makedirs(project)
        source = os.path.join(project, "README.md")
        self.write(source, "# Project: x {#project_x}\n\nA project.\n\n## Try it {#x_try}\n\n"
                   "1. `./build/bin/x --steps 10`: a short run. Does the loss fall?\n"
                   "2. `./build/bin/x --load x.ckpt`: the saved model.\n"
                   "   <details class=\"tfm-answer\"><summary>Answer</summary>\n"
                   "   It does.\n"
                   "   </details>\n")
        doxyfile = os.path.join(self.book_dir, "Doxyfile")
        self.write(doxyfile, book.read(doxyfile).replace(
            "\nOTHER", ' \\\n        "%s"\nOTHER' % source))
        self.write(os.path.join(self.html, "project_x.html"), page_html(
            '<div class="contents"><p>A project.</p></div><!-- contents -->'))
        self.assert_fails("projects/x/README.md:7: the exercise has no answer")
        self.assertNotIn("README.md:8:", "\n".join(self.problems()))
        # Answered, it passes this rule; a project's answer needs no chNN_try_K.
        self.write(source, book.read(source).replace(
            "Does the loss fall?\n", "Does the loss fall?\n   <details class=\"tfm-answer\">"
            "<summary>Answer</summary>\n   It falls.\n   </details>\n"))
        self.assertEqual(book_check.rule_try_it_answered(book_check.Book(self.cfg)), [])

    def test_an_answer_without_the_commands_output(self):
        self.write(self.page, PAGE.replace("\\programoutputfolded{ch01_try_2}", "(none)"))
        self.assert_fails("the answer does not show what the command printed: add "
                          "\\programoutputfolded{ch01_try_2}")

    def test_an_answer_is_not_part_of_the_exercise(self):
        items = book.try_it_answers(self.page)
        self.assertEqual([text.endswith(".") and "<details" not in text for _, text, _ in items],
                         [True] * 3)
        self.assertIn("The error names the sizes.", items[1][2])
        self.assertEqual([e for _, _, _, e in book.try_it_commands(self.page)], [False] * 3)

    def test_try_it_commands_are_read_from_the_page(self):
        self.assertEqual([(c, a) for c, a, _, _ in book.try_it_commands(self.page)],
                         [(1, ["--preset", "tiny"]), (1, ["--set", "n_heads=1"]),
                          (1, ["--set", "d_model=8"])])

    def test_an_exercise_that_says_error_expects_one(self):
        self.write(self.page, PAGE + "4. `./tutorial chapter 1 --set n_heads=7`: the program\n"
                   "   stops with an error that names both sizes.\n")
        self.assertEqual([e for _, _, _, e in book.try_it_commands(self.page)],
                         [False, False, False, True])


class TexToText(unittest.TestCase):
    def test_search_snippets_have_no_tex(self):
        text = book.plain_formulas(r"weights \( \mathrm{softmax}\!\left(\frac{Q K^\top}"
                                   r"{\sqrt{d_k}}\right) \) and \[ 5.9 \times 10^{-3} \]")
        self.assertEqual(text, "weights softmax ((Q Kᵀ)/√d_k ) and 5.9 × 10^-3")
        self.assertNotIn("\\", text)


if __name__ == "__main__":
    unittest.main()
