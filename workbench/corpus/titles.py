"""Titles for records without one, made from the abstract.

:func:`derive_title`: the named system the abstract introduces (``TRACE: a novel benchmark
...``), else the first clause saying what the paper does (``We study methods for X`` ->
``Methods for X``), else its first clause; never one that starts mid-thought (a pronoun, "these
challenges", "To address ...") where the text has another. :func:`derived_titles` lists what
every version derived (ids compare against them: :func:`workbench.corpus.ids.paper_id`), and
:func:`title_repeats_abstract` (:mod:`workbench.corpus.title_checks`) tells a title that adds nothing
to its abstract.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .clean import clean_text, has_latex_markup, single_spaced
from .phrase_scan import UNSEEN, scan, view_of
from .title_checks import LEAD_IN, title_repeats_abstract

__all__ = ["POINTING_BACK", "TITLE_MAX", "derive_title", "derived_titles", "title_repeats_abstract"]

TITLE_MAX = 90

_INTRO = re.compile(
    r"\b(?:we|this (?:paper|work|report))\s+(?:first\s+|also\s+|then\s+)?"
    r"(?:introduce|propose|present|develop|release|build|construct|design|unveil|describe)s?"
    r"\s+(?:and\s+\w+\s+)?",
    re.I,
)
_INTRO_STARTS = ("we ", "this ")
# A name people would put in a title: has an inner capital, a digit, a hyphen or is all caps.
_NAME = r"(?:[A-Z][\w\-\.\u00c0-\u024f²³¹⁰-⁹]*(?:[A-Z\d\-²³]|[a-z][A-Z])[\w\-\.²³¹⁰-⁹]*|[A-Z]{2,}\w*)"
_NAME_FIRST = re.compile(
    rf"^(?:the\s+)?(?P<name>{_NAME}(?:\s{_NAME})?)"
    r"(?:\s*\((?P<expansion>[^)]{3,80})\))?\s*(?:[,:]\s*|\s+(?:is|as)\s+)(?P<desc>.+)",
)
_EXPANSION_FIRST = re.compile(
    rf"^(?:an?\s+\w+\s+\w+,\s+)?(?P<expansion>[A-Z][\w\-]*(?:\s+[\w\-&]+){{1,8}}?)\s*\((?P<name>{_NAME})\)"
    r"\s*(?:[,:]\s*(?P<desc>.+))?",
)
_CALLED = re.compile(rf"^(?P<desc>.{{8,120}}?),?\s+(?:called|named|dubbed|termed)\s+(?P<name>{_NAME})\b")

#: Words a title never starts with: pronouns and words pointing back at a sentence before
#: ("these challenges", "this gap"), which leave a title starting mid-thought.
POINTING_BACK = frozenset(
    "we i you he she it they us them our ours its their his her this these those that such there".split()
)
_BACK = r"(?:these|this|those|such|it|them|their|its|the above|the aforementioned)"
# Where a description turns to what an earlier sentence said: "... a solution to address these
# challenges", "... a model that bridges this gap", "... designed for such settings".
_TURNS_BACK = re.compile(rf"(?:,\s*|\s+(?:to|that|which|for|by|through|designed|in order)\s+)(?:\w+\s+){{0,2}}?{_BACK}\b", re.I)


def _shorten(text: str, limit: int = TITLE_MAX) -> str:
    text = text.strip().rstrip(".,;:")
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(",;:-– ") + "…"


# A sentence ends at a full stop after a small letter, a digit or a bracket (not "e.g. U.S. Army").
_STOP = re.compile(r"[.!?]\s+(?=[A-Z])")
_BEFORE_STOP = frozenset("abcdefghijklmnopqrstuvwxyz0123456789)")


def _sentences(text: str, most: int = 0) -> list[str]:
    """``text`` split into sentences (the first ``most``, with the rest of the text as the last)."""
    out, start = [], 0
    for m in _STOP.finditer(text):
        if m.start() and text[m.start() - 1] in _BEFORE_STOP:
            out.append(text[start : m.start() + 1])
            start = m.end()
            if len(out) == most:
                break
    return out + [text[start:]]


def _first_sentences(text: str, most: int) -> Iterator[str]:
    """``_sentences(text, most)[:most]`` one at a time: no sentence is split off before it is wanted."""
    start, n = 0, 0
    for m in _STOP.finditer(text):
        if m.start() and text[m.start() - 1] in _BEFORE_STOP:
            yield text[start : m.start() + 1]
            start = m.end()
            n += 1
            if n == most:
                return
    yield text[start:]


def _first_sentence(text: str) -> str:
    return _sentences(text, 1)[0]


def _desc_clause(desc: str) -> str:
    return _clause(_first_sentence(desc))


def _clause(sentence: str) -> str:
    """:func:`_desc_clause` of one sentence (of text that :func:`_first_sentence` gives whole)."""
    desc = _WHICH_IS.sub("", sentence)
    # Stop at the next clause that starts a new thought, unless that leaves too little to read.
    head = _NEW_THOUGHT.split(desc, maxsplit=1)[0]
    return (head if len(head) >= 40 else desc).strip().rstrip(",")


def _own_desc(name: str, desc: str, text: str) -> str:
    """``desc`` without a tail that points back at an earlier sentence ("a comprehensive solution
    to address these challenges" -> "a comprehensive solution"); where little is left, what the
    next sentence starting with ``name`` says of it ("AgentOhana aggregates agent trajectories ...")."""
    turn = _TURNS_BACK.search(desc)
    if turn is None:
        return desc
    head = desc[: turn.start()].strip().rstrip(",")
    if len(head.split()) < 4:
        later = re.search(rf"(?:^|[.!?]\s+){re.escape(name)}\s+(?P<verb>[a-z]+s)\s+(?P<rest>[^.;:]+)", text)
        if later and not _TURNS_BACK.search(later.group("rest")):
            said = _desc_clause(f"{later.group('verb')} {later.group('rest')}")
            return _GOES_ON.split(said, maxsplit=1)[0]
    return head if head.split() else desc


def _named_system(text: str, tidy: bool = True, view=UNSEEN) -> str | None:
    """"NAME: what it is" where ``text`` introduces a named system; None where it names none.
    ``tidy``: without a description that points back (what :func:`derive_title` gives since issue 14);
    ``view``: :func:`~workbench.corpus.phrase_scan.view_of` of ``text``, when known."""
    for m in scan(_INTRO, text, _INTRO_STARTS, view):
        rest = text[m.end():]
        hit = _NAME_FIRST.match(rest)
        if hit:
            name, desc, paren = hit.group("name"), hit.group("desc"), hit.group("expansion")
            if paren and " " not in paren.strip():  # "Full Name (ACRONYM)" or "Name (ALIAS)"
                if " " in name:
                    return _shorten(f"{paren}: {name}")
                desc = _desc_clause(desc)
                return _shorten(f"{name} ({paren}): {_own_desc(paren, desc, text) if tidy else desc}")
            if paren:  # "ACRONYM (Full Name)"
                return _shorten(f"{name}: {paren}")
            desc = _desc_clause(desc)
            return _shorten(f"{name}: {_own_desc(name, desc, text) if tidy else desc}")
        hit = _EXPANSION_FIRST.match(rest)
        if hit:
            return _shorten(f"{hit.group('name')}: {hit.group('expansion')}")
        hit = _CALLED.match(rest)
        if hit:
            desc = _desc_clause(hit.group("desc"))
            return _shorten(f"{hit.group('name')}: {_own_desc(hit.group('name'), desc, text) if tidy else desc}")
    return None


def _first_clause(sentence: str) -> str:
    end = _CLAUSE_END.search(sentence)  # (where split() would cut first: it stops there)
    clause = sentence[: end.start()] if end else sentence
    return sentence if len(clause) < 25 else clause


def _starts_mid_thought(title: str) -> bool:
    """Starts with a pronoun or "this", points back in its first words ("one such method", "the
    same effect"), or starts with "To address"."""
    first = _FIRST_WORD.match(title)
    head = title[:40].lower()
    return (first is None or first.group(1).lower() in POINTING_BACK
            or _POINTS_BACK_SOON.match(head)
            is not None
            or head.startswith(("to address", "to tackle", "to overcome", "to solve", "to fill", "to bridge")))


def _fallback_title(text: str) -> str:
    """The first clause of the first sentence that does not start mid-thought (lead-ins such as
    "To address this, " dropped); the first clause of the text when every sentence does."""
    for sentence in _first_sentences(text, 8):
        clause = _first_clause(LEAD_IN.sub("", sentence))
        if clause and not _starts_mid_thought(clause):
            return _shorten(_capital(clause))
    return _shorten(_first_clause(_first_sentence(text)))


# What a paper does, said by its authors: "we study X", "this paper examines X", "we show that X".
_DOES = (
    "introduce propose present develop design build construct release describe provide offer report study "
    "examine explore analyze analyse evaluate assess review survey compare formulate derive establish identify "
    "address tackle consider discuss benchmark investigate characterize characterise quantify measure outline "
    "summarize summarise define create train collect curate conduct unveil focus give obtain highlight trace "
    "show demonstrate find argue prove observe reveal hypothesize posit claim conclude suggest confirm ask test "
    "determine notice note incorporate aim seek attempt strive set"
).split()
# Verbs whose object alone would lose what is done with it: "we solve X" -> "Solving X".
_DOING = ("use apply extend solve compute calculate generalize generalise estimate simulate implement employ improve "
          "enhance look").split()
_IRREGULAR = {"found": "find", "built": "build", "sought": "seek", "shown": "show", "showed": "show",
              "proven": "prove", "gave": "give", "given": "give"}
_VERB_FORMS = {
    **{form: verb for verb in _DOES + _DOING
       for form in (verb, verb + "s", verb + "es", verb[:-1] + "ies", verb + "d", verb + "ed", verb[:-1] + "ied")},
    **_IRREGULAR,
}
_ADVERB = r"(?!(?:apply|imply|rely|reply|supply|multiply|comply)\b)\w+ly"
_STATES = re.compile(
    r"(?<!can )(?<!could )(?<!should )(?<!do )(?<!how )"
    r"\b(?:we|i|this\s+(?:[\w\-]+\s+){0,2}?(?:paper|work|study|article|report|survey|review|letter|note|thesis"
    r"|chapter|poster|submission|talk|contribution|commentary|editorial|manuscript|book|essay|dissertation"
    r"|tutorial|overview|document|analysis|trial|investigation|project|lecture|proposal|update)"
    rf"|our\s+(?:paper|work|study))\s+(?:(?:will|shall)\s+)?"
    rf"(?:(?:{_ADVERB}|first|also|further|then|now|here|therefore|thus|hence|instead)\s+)?"
    r"(?P<verb>[a-z]+)\s+",
    re.I,
)
_STATES_STARTS = ("we ", "i ", "this ", "our ")
_ASPIRES = frozenset({"aim", "seek", "attempt", "strive", "set"})
_CLAIMS = frozenset({"show", "demonstrate", "find", "argue", "prove", "observe", "reveal", "hypothesize", "posit",
                     "claim", "conclude", "suggest", "confirm", "establish"})
_QUESTION = re.compile(r"^(?:whether|if)\s+", re.I)
_WH = re.compile(r"^(?:how|why|what|when|which|where|who|to what extent)\b", re.I)
# Compiled once (re's own cache costs a look-up a call).
_WHICH_IS = re.compile(r"^(?:which|that)\s+(?:is\s+)?")
# (Each of these three starts with one character of a few, so the engine skips to where one is:
# ``\s(?:which|...)\s|;``, ``(?<=\w),\s+(?=...)|;\s+|:\s+`` and ``,?\s+(?:and|but)...|,\s+...``
# as written first, the same matches, ~1.5-3x faster.)
_NEW_THOUGHT = re.compile(r"\s(?:which|that|where|while|whereby)\s|;")
_GOES_ON = re.compile(r",\s+(?:\w+ing|which|while|where)\b")
_CLAUSE_END = re.compile(r"(?<=\w),\s+(?=(?:but|while|which|and|yet|so|where|however)\b)|;\s+|:\s+")
_FIRST_WORD = re.compile(r"\W*([\w'’]+)")
_POINTS_BACK_SOON = re.compile(r"^(?:[\w\-]+\s+){0,2}(?:such|same|aforementioned|above|these|those|following)\b")
_DIGIT = re.compile(r"\d")
_ON_OR_AND = re.compile(rf"^(?:on\s+|and\s+(?:{_ADVERB}\s+)?[a-z]+\s+)")
_TO_VERB = re.compile(r"^(?:out\s+)?to\s+(?P<verb>[a-z]+)\s+(?P<rest>.+)", re.I)
_THREE_LETTERS = re.compile(r"[^\W\d_]{3}")
_COLON_OR_SEMICOLON = re.compile(r";\s|:\s")
_DANGLING = re.compile(r"(?:[\s,:]+(?:that|which|and|but|or|to|by|with|of|for|the|a|an|in|on))+[\s,:]*$", re.I)
_OBJECT_NAME = r"(?:[A-Z]|[a-z]+[A-Z])[\w\-²³]*"
_NAME_COMMA_DESC = re.compile(rf"^(?P<name>{_OBJECT_NAME}(?:\s+{_OBJECT_NAME}){{0,3}}),\s+(?P<desc>(?:an?|the)\s.+)$")
_CALLED_WORDS = ("called", "named", "namely", "dubbed", "termed")  # (one is in every match of:)
_DESC_CALLED_NAME = re.compile(rf"^(?P<desc>.{{6,80}}?),?\s+(?:{'|'.join(_CALLED_WORDS)})\s+"
                               r"(?P<name>[^\s,.;]*[A-Z\d]\S*(?:\s+[A-Z]\S*){0,3})"
                               r"(?:\s*\((?P<paren>[^)]{2,20})\))?")


def _capital(title: str) -> str:
    """The first letter in capitals, unless the first word is written with capitals of its own
    ("xLAM", "f-GRPO", "mRNA") or digits."""
    first = title.split(" ", 1)[0]
    return title[0].upper() + title[1:] if first.islower() and not _DIGIT.search(first) else title


def _gerund(verb: str) -> str:
    return (verb[:-1] if verb.endswith("e") and not verb.endswith("ee") else verb) + "ing"


def _stated(verb: str, rest: str, depth: int = 0) -> str | None:
    """The title a sentence "we ``verb`` ``rest``" gives, or None where it gives none."""
    rest = _ON_OR_AND.sub("", rest)  # "focus on X", "design and build X"
    if verb in _ASPIRES:  # "we aim to study X" -> as "we study X"
        hop = _TO_VERB.match(rest)
        if hop is None or depth or hop.group("verb").lower() not in _VERB_FORMS:
            return None
        return _stated(_VERB_FORMS[hop.group("verb").lower()], hop.group("rest"), depth + 1)
    if verb in _CLAIMS and rest.lower().startswith("that "):
        rest = rest[5:]
    elif verb in _DOING:  # "we look at X" -> "Looking at X"
        rest = f"{_gerund(verb)} {rest}"
    elif _QUESTION.match(rest):
        rest = f"{_gerund(verb)} whether {_QUESTION.sub('', rest)}"
    rest = _object_clause(rest)
    if not rest or _starts_mid_thought(rest) or not _THREE_LETTERS.search(rest):
        return None
    return _shorten(_named_object(_capital(rest)))


def _object_clause(rest: str) -> str:
    """What the paper does, up to where the sentence goes on to something else: "X, and show
    Y", "X, analyze Y", "X: (i) ...", "X, by Y"; no dangling "that" or "and" at its end."""
    for turn in _TURN.finditer(rest):
        word = (turn.group("word") or turn.group("after_comma")).lower()
        if word in _VERB_FORMS and len(word) > 3 or word == "by" and turn.group("after_comma"):
            rest = rest[: turn.start()]
            break
    head = _clause(rest)  # (rest: one sentence, or the start of one)
    cut = _COLON_OR_SEMICOLON.split(head, maxsplit=1)[0]
    if len(cut) >= 20:
        head = cut
    return _DANGLING.sub("", head).strip(" ,:")


# Where a sentence may go on to another thing done: ", and show ...", ", analyze ...", ", by ...".
_TURN = re.compile(r",?\s+(?:and|but)\s+(?:we\s+)?(?:then\s+)?(?P<word>[a-z]+)\b|,\s+(?P<after_comma>[a-z]+)\s", re.I)


def _named_object(title: str) -> str:
    """"Panacea, an innovative approach ..." -> "Panacea: an innovative approach ..."; "a new
    method called TR-DPO" -> "TR-DPO: a new method"."""
    hit = _NAME_COMMA_DESC.match(title)
    if hit:
        return f"{hit.group('name')}: {hit.group('desc')}"
    hit = _DESC_CALLED_NAME.match(title) if any(word in title for word in _CALLED_WORDS) else None
    if hit:
        name = hit.group("paren") or hit.group("name").rstrip(",.")
        return f"{name}: {hit.group('desc')[0].lower()}{hit.group('desc')[1:]}"
    return title


def _stated_aim(text: str, view=UNSEEN) -> str | None:
    """The title the first sentence saying what the paper does gives ("We study methods for
    aligning LLMs with human preferences" -> "Methods for aligning LLMs with human preferences";
    "We investigate whether X" -> "Investigating whether X"; "We show that X" -> "X")."""
    for m in scan(_STATES, text, _STATES_STARTS, view):
        verb = _VERB_FORMS.get(m.group("verb").lower())
        title = _stated(verb, _first_sentence(text[m.end():])) if verb else None
        if title:
            return title
    return None


def derive_title(text: str, *, cleaned: bool = False) -> str:
    """A short readable title for a record that has none: the named system the abstract
    introduces (``"TRACE: a novel benchmark designed to evaluate continual learning in LLMs"``),
    else the first clause saying what the paper does ("We study methods for X" -> ``"Methods
    for X"``), else the first clause of the first sentence; never one starting with a pronoun,
    "this" or "to address" (:data:`POINTING_BACK`) where the text has another; at most about
    ``TITLE_MAX`` characters. ``text`` should already be clean; text that still holds LaTeX
    markup is cleaned first (``cleaned=True``: ``text`` is what
    :func:`workbench.readers.values.clean` gave, as a reader has it; not looked at again).
    """
    text = text if cleaned else _plain(text)
    if not text:
        return "(untitled)"
    view = view_of(text)  # lower-cased once for both scans
    return _named_system(text, view=view) or _stated_aim(text, view) or _fallback_title(text)


def derived_titles(text: str) -> tuple[str, ...]:
    """Every title a workbench version derives from ``text``: :func:`derive_title`'s, then the
    one derived before issue 14 (the named system as written, else the first clause). An
    export holds whichever was current when it was written; a record read back with any of
    them keeps its id (:func:`workbench.corpus.ids.paper_id`)."""
    text = _plain(text)
    if not text:
        return ("(untitled)",)
    previous = _named_system(text, tidy=False) or _shorten(_first_clause(_first_sentence(text)))
    return tuple(dict.fromkeys((derive_title(text), previous)))


def _plain(text: str | None) -> str:
    """``text`` with its white space normalised, and cleaned where it still holds LaTeX markup."""
    return clean_text(text) if has_latex_markup(text or "") else single_spaced(text or "")
