#!/usr/bin/env python3
"""The chapter pages' forge Markdown (book_forge.py): the filter gives the book's Doxygen markup,
one line for one line, and each check of a page's source fails on a page with its defect.

Builds a small repository (two chapter pages, a C++ and a Python source) in a temporary
directory. Standard library only; ctest runs it (book.forge_rules).

    python3 docs/test_book_forge.py
"""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import book_forge  # noqa: E402

SOURCE = """int f(int x) {
  // [double it]
  int y = 2 * x;
  return y;
  // [double it]
}
"""

PYTHON = """def g(x):
    # [halve it]
    return x / 2
    # [halve it]
"""

PAGE = """# Chapter 01: The example <a id="ch01"></a>

A formula $d_k = 64$ and one with a thin space $`a\\, b`$, next to `$HOME` and `a $b$ c`.
A formula that spans
$x +
y$ two lines. See [chapter 02](../02_other/README.md) and [its part](../02_other/README.md#ch02_part),
and [Chapter 02: Other](../02_other/README.md).

## A part <a id="ch01_part"></a>

```math
\\sum_i x_i
```

<!-- snippet x.cpp [double it] -->
```cpp
int y = 2 * x;
return y;
```

<!-- snippet ref.py [halve it] -->
```python
return x / 2
```

```sh
echo $PATH [not a link](../02_other/README.md)
```

Run `./tutorial chapter 1` to see this output. <!-- book: \\programoutput{ch01_example} -->

<!-- book: \\dot "a --set caption" -->
*Figure: a caption.* The book draws this diagram from the source below.
```dot
digraph { a -> b }
```

An old one stays: \\f$ q \\f$ and
\\snippet x.cpp double it
"""

FILTERED = """# Chapter 01: The example {#ch01}

A formula \\f$ d_k = 64 \\f$ and one with a thin space \\f$ a\\, b \\f$, next to `$HOME` and `a $b$ c`.
A formula that spans
\\f$ x +
y \\f$ two lines. See \\ref ch02 "chapter 02" and \\ref ch02_part "its part",
and \\ref ch02.

## A part {#ch01_part}

\\f[
\\sum_i x_i
\\f]

\\snippet x.cpp double it





\\snippet ref.py halve it




```sh
echo $PATH [not a link](../02_other/README.md)
```

\\programoutput{ch01_example}

\\dot "a --set caption"


digraph { a -> b }
\\enddot

An old one stays: \\f$ q \\f$ and
\\snippet x.cpp double it
"""


class Forge(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="tfm_book_forge_")
        for d in ("docs", "chapters/01_example", "chapters/02_other", "common/src", "tests"):
            os.makedirs(os.path.join(self.root, d))
        self.write("docs/book.py", "")
        self.write("common/src/x.cpp", SOURCE)
        self.write("tests/ref.py", PYTHON)
        self.write("chapters/02_other/README.md",
                   "# Chapter 02: Other {#ch02}\n\n## The part {#ch02_part}\n\nText.\n")
        self.page = self.write("chapters/01_example/README.md", PAGE)
        self.roots = book_forge.example_roots(self.root)
        book_forge._FILES.clear()
        book_forge._LABELS.clear()

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def problems(self):
        return book_forge.check_pages([self.page], self.roots, self.root)

    def test_filter_gives_the_books_markup_line_for_line(self):
        out = book_forge.to_doxygen(PAGE, self.page, self.root)
        self.assertEqual(len(out.split("\n")), len(PAGE.split("\n")))
        self.assertEqual(out, FILTERED)

    def test_a_page_in_step_passes(self):
        # The last lines' old \f$ and \snippet are Doxygen markup the forge shows as is: the
        # only problems.
        problems = self.problems()
        self.assertEqual(len(problems), 2, problems)
        self.assertIn(":38: \\f$ is Doxygen markup", problems[0])
        self.assertIn(":39: \\snippet is Doxygen markup", problems[1])
        self.assertIn("<!-- snippet FILE [TAG] -->", problems[1])

    def test_code_that_differs_from_its_source_fails_and_sync_fixes_it(self):
        self.write("common/src/x.cpp", SOURCE.replace("2 * x", "x + x"))
        problems = self.problems()
        self.assertEqual(len(problems), 3, problems)
        self.assertRegex(problems[0], r"README\.md:16: the code under the snippet x\.cpp \[double "
                                      r"it\] differs from its source, common/src/x\.cpp:3-4; "
                                      r"run: python3 docs/book.py sync-snippets .*README\.md")
        self.assertEqual(book_forge.sync_page(self.page, self.roots, self.root), [])
        self.assertEqual(len(self.problems()), 2)
        self.assertIn("int y = x + x;", book_forge.read(self.page))

    def test_python_markers(self):
        self.write("tests/ref.py", PYTHON.replace("x / 2", "x * 0.5"))
        problems = self.problems()
        self.assertTrue(any("ref.py [halve it] differs" in p for p in problems), problems)

    def test_a_missing_fence_tag_or_file_fails(self):
        page = PAGE.replace("```cpp\nint y = 2 * x;\nreturn y;\n```\n", "")
        self.write("chapters/01_example/README.md", page)
        self.assertTrue(any("has no code fence under it" in p for p in self.problems()))
        self.assertEqual(book_forge.sync_page(self.page, self.roots, self.root), [])
        self.assertFalse(any("snippet x.cpp" in p for p in self.problems()))
        self.write("chapters/01_example/README.md", PAGE.replace("[double it]", "[triple it]"))
        self.assertTrue(any("has no two markers [triple it]" in p for p in self.problems()))
        self.write("chapters/01_example/README.md", PAGE.replace("x.cpp [", "y.cpp ["))
        self.assertTrue(any("y.cpp names no single file" in p for p in self.problems()))

    def test_bare_doxygen_markup_fails(self):
        for bad, word in [("\\snippet x.cpp double it", "\\snippet"),
                          ("a formula \\f$ x \\f$ here", "\\f$"),
                          ("\\f[ x \\f]", "\\f["),
                          ("see \\ref ch02 \"chapter 02\"", "\\ref"),
                          ("\\programoutput{ch01_example}", "\\programoutput"),
                          ("\\image html a.svg \"a caption\"", "\\image"),
                          ("## A heading {#ch01_h}", "{#ch01_h}")]:
            self.write("chapters/01_example/README.md", "# Chapter 01: X <a id=\"ch01\"></a>\n\n"
                       + bad + "\n")
            problems = self.problems()
            self.assertEqual(len(problems), 1, (bad, problems))
            self.assertIn(":3: " + word, problems[0])
        self.write("chapters/01_example/README.md", "# Chapter 01: X <a id=\"ch01\"></a>\n\n"
                   "\\dot \"c\"\ndigraph { a -> b }\n\\enddot\n")
        self.assertIn(":3: a bare \\dot", self.problems()[0])

    def test_markup_in_code_is_allowed(self):
        self.write("chapters/01_example/README.md", "# Chapter 01: X <a id=\"ch01\"></a>\n\n"
                   "Write `\\f$ x \\f$` or `\\snippet FILE TAG`.\n\n```\n\\snippet a b\n```\n")
        self.assertEqual(self.problems(), [])

    def test_a_book_comment_without_its_forge_line_fails(self):
        self.write("chapters/01_example/README.md", "# Chapter 01: X <a id=\"ch01\"></a>\n\n"
                   "<!-- book: \\programoutput{ch01_example} -->\n\nText.\n")
        problems = self.problems()
        self.assertEqual(len(problems), 1, problems)
        self.assertIn(":3: <!-- book: \\programoutput{ch01_example} --> has no line under it",
                      problems[0])


if __name__ == "__main__":
    unittest.main()
