"""What Zotero, JabRef and Better BibTeX forgive in a BibTeX file, repaired with a warning.

bibtexparser's splitter is strict: an entry it cannot split becomes a failed block, and the rest
of that entry an implicit comment, so the record is lost. Real exports do things a strict parser
refuses and the importers people use accept. :func:`split` runs bibtexparser's
:class:`~bibtexparser.splitter.Splitter`, then repairs its blocks; every repair is a warning
naming the line, and whatever cannot be repaired is skipped with the splitter's reason:

* an entry without a key (``@article{`` followed by fields, as EndNote writes) gets one,
  ``line<N>``; so does ``@article{,``;
* an empty field between two commas (``title = {...},  , number = ...``) is dropped;
* a comma missing at the end of a field's line (which makes the next field part of its value,
  ``title = {x}`` then ``year = {2020}`` read as one title) is put back;
* a field given twice (also as ``Title`` and ``title``): the first is kept;
* an entry whose closing ``}`` is missing (before the next entry, or at the end of the file)
  is closed;
* a space after ``@`` (``@ article{``), which the splitter reads as a comment, is removed;
* an entry key used twice: both entries are read (the second renamed ``<key>-line<N>``);
* an entry type that is neither BibTeX's nor biblatex's (``@wrong``) is read as a generic record;
* ``@comment`` and ``@preamble`` blocks are counted and ignored (they hold no records).

Comma-first layouts, tabs, padding around ``=`` and ``@type (key, ...)`` parentheses are plain
BibTeX: the splitter reads them as they are. Repaired text keeps every line where it was, so
every line number in a message is the file's.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bibtexparser.library import Library
from bibtexparser.model import (
    Block,
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ExplicitComment,
    Field,
    ImplicitComment,
    ParsingFailedBlock,
    Preamble,
)
from bibtexparser.splitter import Splitter

__all__ = ["KNOWN_TYPES", "split"]

#: BibTeX's and biblatex's entry types (with biblatex's aliases and the ones Zotero writes).
KNOWN_TYPES = frozenset(
    """article book booklet conference inbook incollection inproceedings manual mastersthesis misc
    phdthesis proceedings techreport unpublished mvbook bookinbook suppbook periodical suppperiodical
    collection mvcollection suppcollection reference mvreference inreference mvproceedings report patent
    thesis online electronic www software dataset set xdata artwork audio bibnote commentary image
    jurisdiction legislation legal letter movie music performance review standard video customa customb
    customc customd custome customf preprint""".split()
)

Report = Callable[[str, int], None]

_AT_SPACE = re.compile(r"^([ \t]*)@[ \t]+(?=[A-Za-z]+\s*[{(])", re.M)
_NO_KEY = re.compile(r"^(\s*@\s*(?!(?:string|comment|preamble)\b)[A-Za-z]+\s*[{(])(?=\s*[A-Za-z][\w\-:.]*\s*=)",
                     re.I)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos)


def _remove_at_spaces(text: str, warn: Report) -> str:
    def fix(m: re.Match) -> str:
        warn("a space after '@' (the entry would be read as a comment); removed", _line_of(text, m.start()) + 1)
        return m.group(1) + "@"

    return _AT_SPACE.sub(fix, text)


def _drop_empty_fields(span: str, offset: int, notes: list[tuple[str, int]]) -> str:
    """Remove the second of two commas with only blanks between them, outside braces and quotes."""
    out, depth, quoted, last_comma = [], 0, False, None
    for i, ch in enumerate(span):
        if ch == "{" or (ch == "(" and depth == 0):
            depth += 1
        elif ch == "}" or (ch == ")" and depth == 1):
            depth -= 1
        elif ch == '"' and depth == 1:
            quoted = not quoted
        elif ch == "," and depth == 1 and not quoted:
            if last_comma is not None and not "".join(out[last_comma + 1:]).strip():
                notes.append(("an empty field between two commas; ignored", offset + _line_of(span, i) + 1))
                continue
            last_comma = len(out)
        elif not ch.isspace():
            last_comma = None
        out.append(ch)
    return "".join(out)


def _close(span: str, offset: int, notes: list[tuple[str, int]], at_end: bool) -> str:
    """Append the ``}`` an entry lacks, after its last line that is not blank or a % comment."""
    depth = 0
    for ch in span:
        depth += ch == "{"
        depth -= ch == "}"
    if depth != 1:
        return span
    lines = span.split("\n")
    last = max((i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("%")), default=0)
    lines[last] += "}"
    where = " at the end of the file" if at_end else " before the next entry"
    notes.append((f"the entry has no closing '}}'{where}; closed it here", offset + last + 1))
    return "\n".join(lines)


def _repaired(span: str, offset: int, keys: set[str], at_end: bool) -> tuple[list[Entry], list[tuple[str, int]]]:
    """Entries from the text of a block the splitter gave up on, and what was repaired."""
    notes: list[tuple[str, int]] = []
    m = _NO_KEY.match(span)
    if m:
        key = _new_key(offset + _line_of(span, m.end()) + 1, keys)
        span = f"{m.group(1)}{key},{span[m.end():]}"
        notes.append((f"the entry has no key; read it as {key!r}", offset + 1 + _line_of(span, m.end())))
    span = _close(_drop_empty_fields(span, offset, notes), offset, notes, at_end)
    if not notes:
        return [], []
    library = Splitter("\n" * offset + span).split()  # the same lines as in the file
    entries = [b for b in library.blocks if isinstance(b, (Entry, DuplicateFieldKeyBlock))]
    if any(isinstance(b, ParsingFailedBlock) and not isinstance(b, DuplicateFieldKeyBlock)
           for b in library.blocks) or not entries:
        return [], []
    return entries, notes


def _new_key(line: int, keys: set[str]) -> str:
    key, n = f"line{line}", 1
    while key.lower() in keys:
        n += 1
        key = f"line{line}-{n}"
    keys.add(key.lower())
    return key


_NEXT_FIELD = re.compile(r"\s*\n\s*([A-Za-z][\w\-:.]*)\s*=\s*(\S.*)", re.S)


def _glued(value: str) -> tuple[str, str, str] | None:
    """``{x}\\n year = {2020}`` (a comma missing at the end of a line) -> ``("{x}", "year", "{2020}")``."""
    if value[:1] == "{":
        depth = 0
        for end, ch in enumerate(value):
            depth += (ch == "{") - (ch == "}")
            if depth == 0:
                break
    elif value[:1] == '"':
        end = value.find('"', 1)
    else:
        end = len(value.split("\n", 1)[0].rstrip()) - 1
    m = _NEXT_FIELD.fullmatch(value, end + 1) if end > 0 else None
    return (value[: end + 1], m.group(1), m.group(2).rstrip()) if m else None


def _split_glued(entry: Entry, warn: Report) -> None:
    """A field that swallowed the next one because the comma between them is missing: both read."""
    fields = []
    for fld in entry.fields:
        line = (fld.start_line if fld.start_line is not None else entry.start_line or 0) + 1
        value = fld.value if isinstance(fld.value, str) else None
        while value is not None and (parts := _glued(value)):
            head, name, value = parts
            fields.append(Field(fld.key, head, start_line=line - 1))
            warn(f"no comma after the field {fld.key!r}; read {name!r} as the next field", line)
            line += head.count("\n") + 1
            fld = Field(name, value, start_line=line - 1)
        fields.append(fld)
    entry.fields = fields


def _first_fields(entry: Entry, warn: Report) -> Entry:
    """Keep the first of fields given twice (names compared in lower case), warning for the others."""
    seen: dict[str, int] = {}
    kept = []
    for fld in entry.fields:
        name = fld.key.lower()
        if name in seen:
            warn(f"field {fld.key!r} given again (first on line {seen[name]}); kept the first",
                 (fld.start_line or entry.start_line or 0) + 1)
            continue
        seen[name] = (fld.start_line or entry.start_line or 0) + 1
        kept.append(fld)
    entry.fields = kept
    return entry


def _checked(entry: Entry, keys: dict[str, int], taken: set[str], warn: Report) -> Entry:
    line = (entry.start_line or 0) + 1
    _split_glued(entry, warn)
    entry = _first_fields(entry, warn)
    if not entry.key.strip():
        entry.key = _new_key(line, taken)
        warn(f"the entry has no key; read it as {entry.key!r}", line)
    elif entry.key.lower() in keys:
        first = keys[entry.key.lower()]
        old, entry.key = entry.key, _new_key(line, taken)
        warn(f"entry key {old!r} was already used on line {first}; both entries read "
             "(merged later if they are the same paper)", line)
    keys.setdefault(entry.key.lower(), line)
    taken.add(entry.key.lower())
    if entry.entry_type.lower() not in KNOWN_TYPES:
        warn(f"@{entry.entry_type} is not a BibTeX or biblatex entry type; read as a generic record", line)
    return entry


def _span(lines: list[str], blocks: list[Block], i: int) -> tuple[int, int]:
    """The lines of block ``i`` up to the next block that is not an implicit comment."""
    start = blocks[i].start_line or 0
    end = next((b.start_line for b in blocks[i + 1:] if not isinstance(b, ImplicitComment) and b.start_line),
               len(lines))
    return start, end


def split(text: str, warn: Report, skip: Report) -> Library:
    """bibtexparser's blocks of ``text``, repaired (see the module docstring), before any
    middleware. ``warn(message, line)`` and ``skip(reason, line)`` report on the file."""
    text = _remove_at_spaces(text, warn)
    blocks = Splitter(text).split().blocks
    lines = text.split("\n")
    taken = {b.key.lower() for b in blocks if isinstance(b, Entry)}
    keys: dict[str, int] = {}
    out: list[Block] = []
    ignored = 0
    covered = -1  # blocks before this line were read as part of a repaired entry
    for i, block in enumerate(blocks):
        line = (block.start_line or 0) + 1
        if (block.start_line or 0) < covered:
            continue
        if isinstance(block, DuplicateBlockKeyBlock):
            block = block.ignore_error_block
        if isinstance(block, DuplicateFieldKeyBlock):
            block = block.ignore_error_block
        if isinstance(block, Entry):
            out.append(_checked(block, keys, taken, warn))
        elif isinstance(block, ParsingFailedBlock):
            start, end = _span(lines, blocks, i)
            entries, notes = _repaired("\n".join(lines[start:end]), start, taken, end == len(lines))
            if not entries:
                reason = getattr(block.error, "abort_reason", None) or str(block.error) or type(block.error).__name__
                skip(f"entry could not be parsed ({' '.join(str(reason).split()).rstrip('. ')}); "
                     "check its braces, quotes and commas", line)
                continue
            for note, at in notes:
                warn(note, at)
            for entry in entries:
                if isinstance(entry, DuplicateFieldKeyBlock):
                    entry = entry.ignore_error_block
                out.append(_checked(entry, keys, taken, warn))
            covered = end
        elif isinstance(block, (ExplicitComment, Preamble)):
            ignored += 1
        else:
            out.append(block)
    if ignored:
        warn(f"{ignored} @comment/@preamble blocks hold no records; ignored", None)
    return Library(out, fail_on_duplicate_key=False)
