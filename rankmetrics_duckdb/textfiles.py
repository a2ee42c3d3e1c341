"""Text input files before DuckDB reads them: what they are (gzip, a FIFO, binary or not UTF-8), their first
lines, whether a TREC file is in the strict single-delimiter form the fast reader takes, and, on the error path
only, the line a message names. Plain Python over bytes: nothing here needs DuckDB or sqlglot.
"""
from __future__ import annotations

import gzip
import math
import os
import re
import zlib

from .checks import JUDGMENTS, text_number
from .errors import InputError, UsageError

# What a failed read of a text file raises: the file system's errors, a gzip file cut short (EOFError), and a gzip
# file whose data does not inflate (zlib.error, which is no OSError)
READ_ERRORS = (OSError, EOFError, zlib.error)


def header_delimiter(path: str, first: str) -> str:
    """The delimiter of a CSV/TSV file with a header, from its first data line: a tab unless the line has
    commas too (then a tab only for a .tsv name)."""
    return "\t" if "\t" in first and ("," not in first or path.lower().removesuffix(".gz").endswith(".tsv")) else ","


GZIP_MAGIC = b"\x1f\x8b"  # a gzip file's first bytes: files are known as gzip by them, never by their name


def is_gzip(path: str) -> bool:
    """Whether the file's first bytes say gzip (OSError if it cannot be read)."""
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def open_text(path: str, mode: str = "rt", **options):
    """The file opened for reading, decompressed when it is gzip (is_gzip): every reader of our text forms takes
    both."""
    return (gzip.open if is_gzip(path) else open)(path, mode, **options)


def compression(path: str) -> str:
    """DuckDB's compression option for reading a text file: 'gzip' when its first bytes say gzip, else 'none'.
    DuckDB's 'auto' goes by the name's extension: a gzip file named otherwise was read as text and refused."""
    try:
        return "gzip" if is_gzip(path) else "none"
    except OSError:
        return "none"


def peek(path: str, n: int = 50) -> tuple[bool, list[str]]:
    """(is gzip, the first n non-blank lines) of a text file."""
    is_gz = is_gzip(path)
    lines = []
    try:
        with open_text(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.strip():
                    lines.append(line.rstrip("\r\n"))
                if len(lines) >= n:
                    break
    except READ_ERRORS as e:
        raise InputError(f"{path}: cannot read the file ({e})") from None
    return is_gz, lines


def is_stream(obj) -> bool:
    """A readable file object (sys.stdin.buffer, an open file, io.BytesIO), not a path."""
    return callable(getattr(obj, "read", None)) and not isinstance(obj, (str, os.PathLike))


def is_special_file(path: str) -> bool:
    """A path that exists and is neither a regular file nor a folder: a FIFO, a character device, a socket,
    /dev/stdin on a pipe. Such a file can be read only once, so it is copied first (Reader._spooled)."""
    try:
        return os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path)
    except (OSError, ValueError):
        return False


EXPECTED = "TREC qrels/run text, CSV/TSV with a header, Parquet, or gzip of the text forms"  # what eval reads


def refuse_binary(path: str, expected: str = EXPECTED) -> None:
    """A file that is neither Parquet nor text (after gunzip): a NUL byte or bytes that are not UTF-8 in its
    first 64 KiB (anywhere, for a NUL in an uncompressed file: both read paths refuse it, see text_fault).
    expected: what the reader takes, for the message (the readers of one text form name it: no Parquet there)."""
    try:
        is_gz = is_gzip(path)
        with open_text(path, "rb") as fh:
            chunk = fh.read(65536)
        fault = text_fault(path, chunk, expected) or (None if is_gz else _nul_fault(path, expected))
    except READ_ERRORS as e:
        raise InputError(f"{path}: cannot read the file ({getattr(e, 'strerror', None) or e})") from None
    if fault:
        raise InputError(fault)


# the magic numbers of compressed data other than one gzip layer, and its name
OTHER_COMPRESSION = ((b"BZh", "bzip2-compressed"), (b"\xfd7zXZ\x00", "xz-compressed"), (b"\x28\xb5\x2f\xfd", "zstd-compressed"),
                     (b"\x1f\x8b", "gzip-compressed (twice)"), (b"PK\x03\x04", "a zip archive's"))


def text_fault(path: str, data: bytes, expected: str = EXPECTED) -> str | None:
    """The message for the first NUL byte or non-UTF-8 byte of data (a file's text from its start), or None.
    Ids are compared byte-wise, so text in another encoding (Latin-1) is refused rather than guessed. Data that
    starts as a compressed file other than gzip does (bzip2, xz, zstd, gzip again) is named as such."""
    for magic, kind in OTHER_COMPRESSION:
        if data.startswith(magic) and (magic != b"BZh" or data[4:10] == b"1AY&SY"):  # bzip2's block magic after
            #                                                                        its level digit
            return (f"{path}: {kind} data; rankmetrics reads text files plain or gzip-compressed once: decompress "
                    f"it first")
    nul = data.find(b"\x00")
    try:
        data[:nul if nul >= 0 else len(data)].decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(data) - 3 or nul >= 0:  # not just a character cut at the end of the chunk
            line = data[:e.start].count(b"\n") + 1
            return (f"{path}, line {line}: not UTF-8 text (byte 0x{data[e.start]:02X}); rankmetrics reads text "
                    f"files as UTF-8: convert it (e.g. iconv -f latin1 -t utf-8)")
    if nul >= 0:
        return _nul_message(path, data[:nul].count(b"\n") + 1, expected)
    return None


def _nul_message(path: str, line: int, expected: str = EXPECTED) -> str:
    return f"{path}: cannot detect the format: a NUL byte (line {line}), binary content, not text (expected {expected})"


def _nul_fault(path: str, expected: str = EXPECTED) -> str | None:
    """The message for a NUL byte anywhere in an uncompressed file (a memory-mapped byte search), or None."""
    import mmap
    with open(path, "rb") as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            return None
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
            at = m.find(b"\x00")
            if at < 0:
                return None
            line, start = 1, 0
            while (start := m.find(b"\n", start, at) + 1) > 0:
                line += 1
            return _nul_message(path, line, expected)


def read_fault(path: str) -> str | None:
    """On the error path of a text read: the first bytes that are not UTF-8 text anywhere in the file, or a carriage
    return that does not end a line (DuckDB's CSV reader stops at one between lines that end in \n: "The CSV Parser
    state machine reached an invalid state", naming no line)."""
    try:
        with open_text(path, "rb") as fh:
            data = fh.read()
    except READ_ERRORS:
        return None
    fault = text_fault(path, data)
    lone = re.search(rb"\r(?!\n)", data) if fault is None else None
    if lone is not None:
        line = data.count(b"\n", 0, lone.start()) + 1
        return (f"{path}, line {line}: a carriage return (\\r) that does not end the line, where the other lines "
                f"end in \\n (trec_eval reads lines to \\n and would not split there); end every line with \\n")
    return fault


NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)  # C's decimal strtod: no 1_000
TREC_SPACE = re.compile(r"[ \t\n\r\f]+")  # what separates TREC fields: \\s of DuckDB's regular expressions


def is_trec_line(line: str, kind: str) -> bool:
    """A well-formed TREC line (whatever its ids and tag hold, commas too): 4 fields with a number last
    (qrels), or 6 or more with numbers 4th and 5th (run)."""
    f = [x for x in TREC_SPACE.split(line) if x]
    if kind == JUDGMENTS:
        return len(f) == 4 and bool(NUMBER.fullmatch(f[3]))
    return len(f) >= 6 and bool(NUMBER.fullmatch(f[3])) and bool(NUMBER.fullmatch(f[4]))


VERTICAL_TAB = "\x0b"


def vertical_tab_fault() -> str:
    """The message of a TREC line holding a vertical tab: trec_eval splits fields at it (isspace), DuckDB's \\s
    and TREC_SPACE do not, so '\\vq1' would be a query of its own; refused, wherever it is in the line."""
    return ("a vertical tab (U+000B), where trec_eval would separate fields and rankmetrics would not; use spaces "
            "or tabs")


def split_fields(line: str) -> list[str]:
    """A text line's fields, split where trec_eval's readers and ours split them (TREC_SPACE: ASCII white space;
    a no-break or other Unicode space stays in its field, as in trec_eval, which splits bytes with isspace)."""
    return [f for f in TREC_SPACE.split(line) if f]


def odd_spaces(line: str) -> str:
    """'; a no-break space (U+00A0) does not separate fields (use spaces or tabs)' for each white space character
    of line that does not separate fields, '' for none: the end of the message about a line's field count."""
    odd = sorted({c for c in line if c.isspace() and c not in " \t\n\r\f"})
    return "".join(f"; {char_name(c)} does not separate fields (use spaces or tabs)" for c in odd)


def char_name(c: str) -> str:
    import unicodedata
    name = {"\x0b": "vertical tab", "\xa0": "no-break space"}.get(c) or unicodedata.name(c, "a space character")
    return f"a {name.lower()} (U+{ord(c):04X})"


def csv_shape_fault(path: str, delim: str) -> str | None:
    """On the error path of a CSV read: the first line whose field count differs from the header's."""
    import csv
    with open_text(path, encoding="utf-8", errors="replace", newline="") as fh:
        rows = csv.reader(fh, delimiter=delim)
        header = None
        try:
            for row in rows:
                if not row or (header is None and row[0].lstrip().startswith("#")):
                    continue
                if header is None:
                    header = row
                elif len(row) != len(header):
                    return (f"{path}, line {rows.line_num}: {len(row)} fields where the header has {len(header)} "
                            f"({', '.join(h.strip() for h in header)})")
        except csv.Error:  # a field beyond the module's limit (128 KiB): DuckDB's own message says more
            return None
    return None


def csv_quote_fault(path: str, delim: str) -> str | None:
    """The first line of a CSV file whose quotes do not pair up ('q1,"a,1': a quote opened and not closed;
    '"a"x': text after a closing quote), which DuckDB reads into the value ('"a'), by Python's csv module in
    its strict mode; None if there is none. Run only when an id holds a quote."""
    import csv
    with open_text(path, encoding="utf-8", errors="replace", newline="") as fh:
        rows = csv.reader(fh, delimiter=delim, strict=True)
        start = 1
        try:
            for _ in rows:
                start = rows.line_num + 1
        except csv.Error as e:
            if "field limit" in str(e):  # a field beyond the module's limit (128 KiB), not a quote's fault
                return None
            return (f"{path}, line {start}: the quotes of a field do not pair up ({e}); quote a field whole "
                    f"(\"a,b\") and double a quote inside one (\"a\"\"b\")")
    return None


def first_line_number(path: str, predicate) -> int | None:
    """1-based number of the first line satisfying predicate (used on the error path only)."""
    with open_text(path, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, 1):
            if predicate(line.rstrip("\r\n")):
                return number
    return None


def first_list_length(path: str, cap: int) -> int:
    """How many of a TREC run file's first lines belong to its first query, up to cap (runs are written query
    by query): a speed hint only (measures.top_n_pays)."""
    _, lines = peek(path, cap)  # non-blank lines
    ids = [line.split(None, 1)[0] for line in lines]
    return next((n for n, q in enumerate(ids) if q != ids[0]), len(ids))


def trec_run_tag(path: str) -> str | None:
    """The tag (6th field) of a TREC run file's last line, which trec_eval prints as its runid (get_trec_results.c
    keeps the run_id of the last line); None when the file is not TREC text with a tag there."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
        if head == b"PAR1":
            return None
        if head[:2] == GZIP_MAGIC:
            last = b""
            keep = lambda ln: ln.strip() and not ln.lstrip().startswith(b"#")  # noqa: E731
            with gzip.open(path, "rb") as fh:  # in blocks: a line at a time cost 0.5 s for a 2M-line run
                carry = b""
                while chunk := fh.read(1 << 20):
                    lines = (carry + chunk).split(b"\n")
                    carry = lines.pop()
                    last = next((ln for ln in reversed(lines) if keep(ln)), last)
                if keep(carry):
                    last = carry
        else:
            with open(path, "rb") as fh:
                fh.seek(0, os.SEEK_END)
                end, chunk, last = fh.tell(), b"", b""
                while end > 0 and not last:
                    start = max(0, end - 65536)
                    fh.seek(start)
                    chunk = fh.read(end - start) + chunk
                    end = start
                    lines = [ln for ln in chunk.splitlines() if ln.strip() and not ln.lstrip().startswith(b"#")]
                    if lines and (end == 0 or len(lines) > 1):
                        last = lines[-1]
    except (*READ_ERRORS, ValueError):
        return None
    fields = last.split()
    if len(fields) < 6:
        return None
    try:
        return fields[5].decode("utf-8")
    except UnicodeDecodeError:
        return None


# The CSV reader's buffer for a first look at a file's head (onepass's presorted probe): DuckDB's default buffer
# (tens of MB) is read and split in full before the first row comes, 0.024 s of W2M's run against 0.006 s with
# this one (issue 19, round 17); a whole scan is slower with it (0.62 s against 0.41 s).
HEAD_BUFFER = 262144


def strict_trec_select(path_sql: str, form: tuple[str, bool], kind: str, rank: bool = False,
                       buffer_size: int | None = None) -> tuple[str, str]:
    """(the SELECT reading a strict TREC file, the test of a row t outside the strict form).

    path_sql is the file name as SQL (a literal or a parameter); form is strict_form's (delimiter, gzip): the
    delimiter ' ' or a tab, so it is written as is. The SELECT gives query_id, item_id and the numbers as DOUBLE
    (a run's rank only when rank: see trec_rank), plus rm_bad: an unused field (iter, Q0, the rank when not read,
    tag) is empty or, in a gzip file (which strict_form could not search), a text field holds whitespace the
    general reader splits on (the other delimiter, CR, FF) or a NUL byte. buffer_size: the CSV reader's buffer
    (default DuckDB's, which suits a scan of the whole file; a first look at its head reads less with a smaller
    one: HEAD_BUFFER)."""
    delim, gz, text_numbers = form
    assert delim in (" ", "\t")
    n = 4 if kind == JUDGMENTS else 6
    numeric = {3: "relevance"} if kind == JUDGMENTS else {3: "rank", 4: "score"} if rank else {4: "score"}
    # numbers read as DOUBLE by the CSV reader itself, unless the file may hold a '_' or '+-' (strict_form): DuckDB
    # reads 1_000 as 1000 and +-1 as -1, which are not numbers here (checks.text_number), so those are read as
    # text and converted
    number_type = "VARCHAR" if text_numbers else "DOUBLE"
    types = ", ".join(f"'c{i}': '{number_type if i in numeric else 'VARCHAR'}'" for i in range(n))
    source = (f"read_csv({path_sql}, columns={{{types}}}, delim='{delim}', header=false, quote='', escape='', "
              f"auto_detect=false, strict_mode=true, compression='{'gzip' if gz else 'none'}'"
              f"{f', buffer_size={buffer_size}' if buffer_size else ''})")
    bad = [f"c{i} IS NULL" for i in range(n) if i not in numeric and i not in (0, 2)]
    if gz:  # a number with such a character in it does not read as one: the statement fails, the careful path reads
        text = f"concat({', '.join(f'c{i}' for i in range(n) if i not in numeric)})"
        other = " " if delim == "\t" else "\\t"
        bad += [f"regexp_matches({text}, '[{other}\\r\\f\\v]')", f"contains({text}, chr(0))"]
    keep = ", ".join(["c0 AS query_id", "c2 AS item_id"] + [
        f"{text_number(f'c{i}') if text_numbers else f'c{i}'} AS {c}" for i, c in numeric.items()])
    # a query id starting with '#' (a comment line): between '#' and '$' byte-wise, cheaper than starts_with
    bad_row = ("t.rm_bad OR t.query_id IS NULL OR t.item_id IS NULL OR (t.query_id >= '#' AND t.query_id < '$') OR "
               + " OR ".join(f"t.{c} IS NULL" for c in numeric.values()))
    return f"SELECT {keep}, ({' OR '.join(bad)}) AS rm_bad FROM {source}", bad_row


def strict_form(path: str) -> tuple[str, bool, bool] | None:
    """(delimiter, gzip, whether a '_' or '+-' may occur) when a TREC text file can be split on one character, ' '
    or '\\t', exactly as the general TREC reader splits its lines on runs of whitespace (the regular expression
    \\s+: space, tab, CR, LF, FF): no other of those characters occurs. An uncompressed file is checked here by
    single-byte searches of a memory map (a large file costs milliseconds; None for CRLF, mixed separators, a NUL
    byte, which the careful path refuses; a '_' or '+-' anywhere makes strict_trec_select read the numbers as
    text); a gzip file cannot be searched without decompressing it, so its delimiter is its first line's, its numbers
    are read as text, and strict_trec_select's rm_bad finds the other characters row by row."""
    import mmap
    try:
        with open(path, "rb") as fh:
            if fh.read(2) == GZIP_MAGIC:
                with gzip.open(path, "rb") as gz:
                    first = gz.readline()
                return ("\t" if b"\t" in first else " "), True, True
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
                line_end = m.find(b"\n")
                delim = b"\t" if m.find(b"\t", 0, line_end if line_end >= 0 else len(m)) >= 0 else b" "
                others = {b" ": b"\t", b"\t": b" "}[delim]
                if any(m.find(c) >= 0 for c in (others, b"\r", b"\x0c", b"\x00", b"\x0b")):
                    return None
                # DuckDB's CSV reader reads 1_000 as 1000 and +-1 as -1 (C's strtod: 1 and 0): a file that may
                # hold either has its numbers read as text (checks.text_number); '+-' is looked for only where a
                # '+' is (a two-byte search costs about 15 times a one-byte one)
                text_numbers = m.find(b"_") >= 0 or (m.find(b"+") >= 0 and m.find(b"+-") >= 0)
    except (*READ_ERRORS, ValueError):
        return None
    return delim.decode(), False, text_numbers


def line_of(label: str, tokens) -> str:
    """', line N' of the first line of a text file holding every token (error path only), else ''."""
    tokens = [str(t).lower() for t in tokens if t is not None]
    if not os.path.isfile(label):
        return ""
    try:
        with open(label, "rb") as fh:
            if fh.read(4) == b"PAR1":
                return ""
        number = first_line_number(label, lambda ln: all(t in re.split(r"[\s,]+", ln.strip().lower())
                                                          for t in tokens))
    except READ_ERRORS:
        return ""
    return f", line {number}" if number else ""


def read_zscores(path: str) -> dict:
    """trec_eval's -Z file (get_zscores.c): lines `qid measure mean stddev`, whitespace separated, as
    {(qid, measure): (mean, stddev)}. A line of another form, a value that is not a finite number, a negative
    standard deviation or a (qid, measure) pair given twice is refused with the file and line."""
    refuse_binary(path, "z-score text: lines 'qid measure mean stddev', or gzip of it")
    out, where = {}, {}
    try:
        with open_text(path, encoding="utf-8-sig") as fh:  # a byte order mark is not part of the first query id
            for number, line in enumerate(fh, 1):
                fields = split_fields(line)
                if not fields:
                    continue
                at = f"{path}, line {number}"
                if len(fields) != 4:
                    raise InputError(f"{at}: a z-score line has 4 fields (query measure mean stddev), found "
                                     f"{len(fields)}{odd_spaces(line)}")
                qid, measure, *numbers = fields
                values = []
                for name, text in zip(("mean", "stddev"), numbers):
                    value = finite(text)
                    if value is None:
                        raise InputError(f"{at}: the {name} '{text}' is not a finite number")
                    values.append(value)
                if values[1] < 0:
                    raise InputError(f"{at}: the stddev {numbers[1]} is negative")
                if (qid, measure) in out:
                    raise InputError(f"{at}: query {qid} measure {measure} was given already on line "
                                     f"{where[(qid, measure)]}")
                out[(qid, measure)], where[(qid, measure)] = tuple(values), number
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except READ_ERRORS as e:
        raise InputError(f"{path}: cannot read the z-score file: {getattr(e, 'strerror', None) or e}") from None
    if not out:
        raise InputError(f"{path}: the z-score file has no lines")
    return out


def field_lines(path: str, names: tuple, kind: str):
    """(line number, fields) of each line of a text file of one of trec_eval's other judgment formats (qrels_jg,
    prefs, qrels_prefs): fields split on white space, `#` comment lines and blank lines skipped; a binary or
    unreadable file, a line of another number of fields or text that is not UTF-8 stops with one line naming
    the file (and the line)."""
    refuse_binary(path, f"{kind} text: lines '{' '.join(names)}', or gzip of it")
    fault = read_fault(path)
    if fault:
        raise UsageError(fault)
    try:
        # utf-8-sig: a byte order mark is not part of the first query id (DuckDB's reader of qrels and runs drops
        # it too; kept, the first query matched no run query and its values were silently 0)
        with open_text(path, encoding="utf-8-sig", newline="") as fh:
            for number, line in enumerate(fh, 1):
                fields = split_fields(line)
                if line.startswith("#") or not fields:
                    continue
                if len(fields) != len(names):
                    raise InputError(f"{path}, line {number}: a {kind} line has {len(names)} fields "
                                     f"({', '.join(names)}), not {len(fields)}{odd_spaces(line)}: "
                                     f"{line.strip()[:80]!r}")
                if VERTICAL_TAB in line:
                    raise InputError(f"{path}, line {number}: {vertical_tab_fault()}")
                yield number, fields
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except READ_ERRORS as e:
        raise InputError(f"{path}: {getattr(e, 'strerror', None) or e}") from None


def finite(text: str) -> float | None:
    """The number a field holds, None when it is not a finite number written as C's strtod reads one whole
    (NUMBER: not Python's 1_000, which trec_eval's atof reads as 1, nor its Unicode digits or spaces)."""
    if not NUMBER.fullmatch(text):
        return None
    value = float(text)  # NUMBER's text always reads (1e999 as inf)
    return value if math.isfinite(value) else None
