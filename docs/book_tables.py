"""The tables of a program's text output, found and shown as HTML tables (book.py's
\\resultstable; book_check.py uses the same reading to find a table shown as text).

A table, as the programs print them: two or more lines in a row whose fields are separated by at
least two spaces, all with the same number of fields. Its first line is the header when a line of
dashes follows it, when its fields do not line up with the rows' (a header such as
"steps idle min" over three right-aligned columns), or when the rows hold numbers and it does not.
A comment line ("# AMD EPYC ...") between rows of the same table heads a group of rows. Any other
line is text. Standard library only.
"""
import html
import re

FIELD = re.compile(r"\S+(?: \S+)*")
DASHES = re.compile(r"^\s*-{3,}\s*$")
NUMBER = re.compile(r"^[-+]?(?:[\d.,]+%?|\d+/\d+)(?:\s*/\s*[-+]?[\d.,]+%?)*$|^-$")
MIN_ROWS = 2  # a header and one row, or two rows


def fields(line):
    """[(start, end, text)] of the fields of a line: text separated by two spaces or more."""
    return [(m.start(), m.end(), m.group(0)) for m in FIELD.finditer(line)]


def is_comment(line):
    return line.lstrip().startswith("#")


# A line of the shape trace ("[Component] what it did   name -> [shape]   (axes)"): its columns are
# a trace's, not a table's.
TRACE = re.compile(r"^\s*\[[A-Za-z][^\]]*\] ")


def is_row(line):
    return len(fields(line)) >= 2 and not is_comment(line) and not TRACE.match(line)


def is_numeric(text):
    return NUMBER.match(text.replace(" ", "")) is not None or NUMBER.match(text) is not None


def column_spans(rows):
    """[start, end] of each column, over rows of the same number of fields."""
    spans = [[f[0], f[1]] for f in rows[0]]
    for row in rows[1:]:
        for k, (start, end, _) in enumerate(row):
            spans[k][0] = min(spans[k][0], start)
            spans[k][1] = max(spans[k][1], end)
    return spans


def header_by_position(line, spans):
    """The header's words given to the columns under them (or, over none, to the nearest one):
    a header such as "steps idle min" names three columns with single spaces between names."""
    names = [[] for _ in spans]
    for m in re.finditer(r"\S+", line):
        start, end = m.start(), m.end() - 1
        overlap = [min(end, e) - max(start, s) for s, e in spans]
        best = max(range(len(spans)), key=lambda k: overlap[k])
        if overlap[best] < 0:
            # Nearest column; on a tie the one to the right (numbers are aligned right).
            best = min(range(len(spans)), key=lambda k: (max(spans[k][0] - end, start - spans[k][1]),
                                                         -k))
        names[best].append(m.group(0))
    return [" ".join(n) for n in names]


def row_cells(line, n):
    """The n cells of a row; fields beyond the n-th belong to the last cell (a double space in
    the text of a last column)."""
    found = fields(line)
    if len(found) <= n:
        return [f[2] for f in found]
    return [f[2] for f in found[:n - 1]] + [line[found[n - 1][0]:].rstrip()]


def split_table(lines, first, last):
    """The table of lines[first:last + 1] (all with at least two fields, or comments, or dashes),
    as (header or None, [("row", cells) or ("group", text)], the line numbers of the rows), and
    the index after the table, or None when the lines make no table."""
    body = [i for i in range(first, last + 1) if not DASHES.match(lines[i]) and not is_comment(lines[i])]
    if len(body) < MIN_ROWS:
        return None
    counts = [len(fields(lines[i])) for i in body[1:]]
    n = max(set(counts), key=lambda c: (counts.count(c), c))
    head = body[0]
    head_fields = fields(lines[head])
    dashed = head + 1 <= last and DASHES.match(lines[head + 1])
    rows_numeric = any(is_numeric(f[2]) for i in body[1:] for f in fields(lines[i])[1:])
    head_numeric = any(is_numeric(f[2]) for f in head_fields[1:])
    has_header = dashed or len(head_fields) != n or (rows_numeric and not head_numeric)
    start = body[1] if has_header else body[0]
    rows, numbers, end = [], [], start
    i = start
    while i <= last:
        line = lines[i]
        if DASHES.match(line):
            i += 1
            continue
        if is_comment(line):
            rows.append(("group", line.strip().lstrip("#").strip()))
            numbers.append(i)
            i += 1
            continue
        if len(fields(line)) < n or not is_row(line):
            break
        rows.append(("row", row_cells(line, n)))
        numbers.append(i)
        end = i + 1
        i += 1
    while rows and rows[-1][0] == "group":  # a comment after the last row is text
        rows.pop()
        numbers.pop()
    data = [r for r in rows if r[0] == "row"]
    if len(data) + (1 if has_header else 0) < MIN_ROWS or (not has_header and len(data) < MIN_ROWS):
        return None
    header = None
    if has_header:
        if len(head_fields) == n:
            header = [f[2] for f in head_fields]
        else:
            spans = column_spans([fields(lines[k])[:n] for k, r in zip(numbers, rows) if r[0] == "row"])
            header = header_by_position(lines[head], spans)
    return (header, rows, ([head] if has_header else []) + numbers), end


def segments(text):
    """The text cut into ("text", [lines]) and ("table", header, rows, [line numbers]), in order."""
    lines = text.rstrip("\n").split("\n")
    out, pending, i = [], [], 0

    def flush():
        if pending:
            out.append(("text", list(pending)))
            pending.clear()

    while i < len(lines):
        if is_row(lines[i]):
            last = i
            k = i + 1
            while k < len(lines):
                line = lines[k]
                if DASHES.match(line) or is_row(line):
                    last = k
                elif is_comment(line) and k + 1 < len(lines) and is_row(lines[k + 1]):
                    pass
                else:
                    break
                k += 1
            found = split_table(lines, i, last)
            if found:
                (header, rows, numbers), end = found
                flush()
                out.append(("table", header, rows, numbers))
                i = end
                continue
        pending.append(lines[i])
        i += 1
    flush()
    return out


def table_html(header, rows):
    width = len(header) if header else max(len(r[1]) for r in rows if r[0] == "row")
    out = ['<table class="tfm-results">\n']
    if header:
        data = [cells for kind, cells in rows if kind == "row"]
        numeric = [all(is_numeric(r[k]) for r in data if k < len(r)) for k in range(len(header))]
        out.append("<tr>%s</tr>\n" % "".join(
            "<th%s>%s</th>" % (' class="tfm-num"' if numeric[k] else "", html.escape(c))
            for k, c in enumerate(header)))
    for kind, cells in rows:
        if kind == "group":
            out.append('<tr class="tfm-group"><td colspan="%d">%s</td></tr>\n'
                       % (width, html.escape(cells)))
            continue
        ours = ' class="tfm-ours"' if cells[0].startswith("this model") else ""
        out.append("<tr%s>%s</tr>\n" % (ours, "".join(
            '<td%s>%s</td>' % (' class="tfm-num"' if is_numeric(c) else "", html.escape(c))
            for c in cells)))
    out.append("</table>\n")
    return "".join(out)
