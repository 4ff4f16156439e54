"""Titles for records without one, made from the abstract.

:func:`derive_title`: the named system the abstract introduces (``TRACE: a novel benchmark
...``), else the first clause saying what the paper does (``We study methods for X`` ->
``Methods for X``), else its first clause; never one that starts mid-thought (a pronoun, "these
challenges", "To address ...") where the text has another. :func:`derived_titles` lists what
every version derived (ids compare against them: :func:`workbench.records.paper_id`), and
:func:`title_repeats_abstract` tells a title that adds nothing to its abstract.
"""

from __future__ import annotations

import re

__all__ = ["POINTING_BACK", "TITLE_MAX", "derive_title", "derived_titles", "title_repeats_abstract"]

TITLE_MAX = 90

# Each pattern scanned over whole abstracts starts with a look-ahead on its first letters: the
# regular expression engine then skips most positions at once (3-5x faster, same matches).
_INTRO = re.compile(
    r"(?=[wt])\b(?:we|this (?:paper|work|report))\s+(?:first\s+|also\s+|then\s+)?"
    r"(?:introduce|propose|present|develop|release|build|construct|design|unveil|describe)s?"
    r"\s+(?:and\s+\w+\s+)?",
    re.I,
)
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
# Lead-ins that say where, not what: "To address these challenges, ...", "In this paper, ...".
_LEAD_IN = re.compile(
    r"^(?:(?:to|in order to)\s+(?:address|tackle|overcome|solve|fill|bridge|close|mitigate|alleviate|remedy|fix"
    r"|handle|resolve|meet)\b[^,]{0,120},\s*|(?:in|with)\s+this\s+\w+(?:\s+\w+)?,\s*|here,?\s+|to this end,\s*"
    r"|motivated by (?:this|these)[^,]{0,80},\s*|(?:accordingly|therefore|thus|hence|consequently|specifically)"
    r",\s*|it\s+(?:is|was|has\s+been)\s+(?:\w+\s+)?(?:shown|proved|proven|known|argued|demonstrated|found"
    r"|suggested|observed|conjectured|consistent|established)\s+that,?\s+"
    r"|we\s+(?:\w+ly\s+)?(?:show|find|argue|prove|demonstrate|note|observe)\s+that,?\s+"
    r"|there\s+(?:is|are|was|were|exists?|has\s+been|have\s+been)\s+(?:,?\s*\w+,\s*)?"
    r"|(?:this|these)(?:\s+[\w\-]+){0,3}?\s+(?:is|are|was|were|has\s+been|have\s+been)\s+"
    r"(?:(?:devoted|dedicated)\s+to\s+)?)+",
    re.I,
)


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


def _first_sentence(text: str) -> str:
    return _sentences(text, 1)[0]


def _desc_clause(desc: str) -> str:
    desc = re.sub(r"^(?:which|that)\s+(?:is\s+)?", "", _first_sentence(desc))
    # Stop at the next clause that starts a new thought, unless that leaves too little to read.
    head = re.split(r"\s(?:which|that|where|while|whereby)\s|;", desc, maxsplit=1)[0]
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
            return re.split(r",\s+(?:\w+ing|which|while|where)\b", said, maxsplit=1)[0]
    return head if head.split() else desc


def _named_system(text: str, tidy: bool = True) -> str | None:
    """"NAME: what it is" where ``text`` introduces a named system; None where it names none.
    ``tidy``: without a description that points back (what :func:`derive_title` gives since issue 14)."""
    for m in _INTRO.finditer(text):
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
    clause = re.split(r"(?<=\w),\s+(?=(?:but|while|which|and|yet|so|where|however)\b)|;\s+|:\s+", sentence)[0]
    return sentence if len(clause) < 25 else clause


def _starts_mid_thought(title: str) -> bool:
    """Starts with a pronoun or "this", points back in its first words ("one such method", "the
    same effect"), or starts with "To address"."""
    first = re.match(r"\W*([\w'’]+)", title)
    head = title[:40].lower()
    return (first is None or first.group(1).lower() in POINTING_BACK
            or re.match(r"^(?:[\w\-]+\s+){0,2}(?:such|same|aforementioned|above|these|those|following)\b", head)
            is not None
            or head.startswith(("to address", "to tackle", "to overcome", "to solve", "to fill", "to bridge")))


def _fallback_title(text: str) -> str:
    """The first clause of the first sentence that does not start mid-thought (lead-ins such as
    "To address this, " dropped); the first clause of the text when every sentence does."""
    for sentence in _sentences(text, 8)[:8]:
        clause = _first_clause(_LEAD_IN.sub("", sentence))
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
    r"(?=[wito])\b(?<!can )(?<!could )(?<!should )(?<!do )(?<!how )"
    r"(?:we|i|this\s+(?:[\w\-]+\s+){0,2}?(?:paper|work|study|article|report|survey|review|letter|note|thesis"
    r"|chapter|poster|submission|talk|contribution|commentary|editorial|manuscript|book|essay|dissertation"
    r"|tutorial|overview|document|analysis|trial|investigation|project|lecture|proposal|update)"
    rf"|our\s+(?:paper|work|study))\s+(?:(?:will|shall)\s+)?"
    rf"(?:(?:{_ADVERB}|first|also|further|then|now|here|therefore|thus|hence|instead)\s+)?"
    r"(?P<verb>[a-z]+)\s+",
    re.I,
)
_ASPIRES = frozenset({"aim", "seek", "attempt", "strive", "set"})
_CLAIMS = frozenset({"show", "demonstrate", "find", "argue", "prove", "observe", "reveal", "hypothesize", "posit",
                     "claim", "conclude", "suggest", "confirm", "establish"})
_QUESTION = re.compile(r"^(?:whether|if)\s+", re.I)
_WH = re.compile(r"^(?:how|why|what|when|which|where|who|to what extent)\b", re.I)


def _capital(title: str) -> str:
    """The first letter in capitals, unless the first word is written with capitals of its own
    ("xLAM", "f-GRPO", "mRNA") or digits."""
    first = title.split(" ", 1)[0]
    return title[0].upper() + title[1:] if first.islower() and not re.search(r"\d", first) else title


def _gerund(verb: str) -> str:
    return (verb[:-1] if verb.endswith("e") and not verb.endswith("ee") else verb) + "ing"


def _stated(verb: str, rest: str, depth: int = 0) -> str | None:
    """The title a sentence "we ``verb`` ``rest``" gives, or None where it gives none."""
    rest = re.sub(rf"^(?:on\s+|and\s+(?:{_ADVERB}\s+)?[a-z]+\s+)", "", rest)  # "focus on X", "design and build X"
    if verb in _ASPIRES:  # "we aim to study X" -> as "we study X"
        hop = re.match(r"^(?:out\s+)?to\s+(?P<verb>[a-z]+)\s+(?P<rest>.+)", rest, re.I)
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
    if not rest or _starts_mid_thought(rest) or not re.search(r"[^\W\d_]{3}", rest):
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
    head = _desc_clause(rest)
    cut = re.split(r";\s|:\s", head, maxsplit=1)[0]
    if len(cut) >= 20:
        head = cut
    return re.sub(r"(?:[\s,:]+(?:that|which|and|but|or|to|by|with|of|for|the|a|an|in|on))+[\s,:]*$", "", head,
                  flags=re.I).strip(" ,:")


# Where a sentence may go on to another thing done: ", and show ...", ", analyze ...", ", by ...".
_TURN = re.compile(r",?\s+(?:and|but)\s+(?:we\s+)?(?:then\s+)?(?P<word>[a-z]+)\b|,\s+(?P<after_comma>[a-z]+)\s", re.I)


def _named_object(title: str) -> str:
    """"Panacea, an innovative approach ..." -> "Panacea: an innovative approach ..."; "a new
    method called TR-DPO" -> "TR-DPO: a new method"."""
    name = r"(?:[A-Z]|[a-z]+[A-Z])[\w\-²³]*"
    hit = re.match(rf"^(?P<name>{name}(?:\s+{name}){{0,3}}),\s+(?P<desc>(?:an?|the)\s.+)$", title)
    if hit:
        return f"{hit.group('name')}: {hit.group('desc')}"
    hit = re.match(r"^(?P<desc>.{6,80}?),?\s+(?:called|named|namely|dubbed|termed)\s+"
                   r"(?P<name>[^\s,.;]*[A-Z\d]\S*(?:\s+[A-Z]\S*){0,3})"
                   r"(?:\s*\((?P<paren>[^)]{2,20})\))?", title)
    if hit:
        name = hit.group("paren") or hit.group("name").rstrip(",.")
        return f"{name}: {hit.group('desc')[0].lower()}{hit.group('desc')[1:]}"
    return title


def _stated_aim(text: str) -> str | None:
    """The title the first sentence saying what the paper does gives ("We study methods for
    aligning LLMs with human preferences" -> "Methods for aligning LLMs with human preferences";
    "We investigate whether X" -> "Investigating whether X"; "We show that X" -> "X")."""
    for m in _STATES.finditer(text):
        verb = _VERB_FORMS.get(m.group("verb").lower())
        title = _stated(verb, _first_sentence(text[m.end():])) if verb else None
        if title:
            return title
    return None


def derive_title(text: str) -> str:
    """A short readable title for a record that has none: the named system the abstract
    introduces (``"TRACE: a novel benchmark designed to evaluate continual learning in LLMs"``),
    else the first clause saying what the paper does ("We study methods for X" -> ``"Methods
    for X"``), else the first clause of the first sentence; never one starting with a pronoun,
    "this" or "to address" (:data:`POINTING_BACK`) where the text has another; at most about
    ``TITLE_MAX`` characters. ``text`` should already be clean; text that still holds LaTeX
    markup is cleaned first.
    """
    text = _plain(text)
    if not text:
        return "(untitled)"
    return _named_system(text) or _stated_aim(text) or _fallback_title(text)


def derived_titles(text: str) -> tuple[str, ...]:
    """Every title a workbench version derives from ``text``: :func:`derive_title`'s, then the
    one derived before issue 14 (the named system as written, else the first clause). An
    export holds whichever was current when it was written; a record read back with any of
    them keeps its id (:func:`workbench.records.paper_id`)."""
    text = _plain(text)
    if not text:
        return ("(untitled)",)
    previous = _named_system(text, tidy=False) or _shorten(_first_clause(_first_sentence(text)))
    return tuple(dict.fromkeys((derive_title(text), previous)))


def _plain(text: str | None) -> str:
    """``text`` with its white space normalised, and cleaned where it still holds LaTeX markup."""
    from .cleaning import clean_text, has_latex_markup, single_spaced

    return clean_text(text) if has_latex_markup(text or "") else single_spaced(text or "")


_WORD = re.compile(r"\w+")
_INTRODUCES = re.compile(
    r"\b(?:we|this (?:paper|work|report))\s+(?:\w+\s+)?(?:introduce|propose|present|develop|release|build|construct"
    r"|design|unveil|describe)s?\b",
    re.I,
)


def title_repeats_abstract(title: str, text: str) -> bool:
    """Whether ``title`` says nothing ``text`` does not: made from it (:func:`derive_title`: the
    abstract's first clause, maybe cut with "…", "NAME: description" taken from the sentence
    that introduces a system, or what a "we study ..." sentence says the paper does), or a title
    the abstract starts with. Cheap: no LaTeX clean-up, no title re-derivation. A reader sets
    ``Paper.title_derived`` with it, so a title made from the abstract and written into an
    export is still known as such when the export is read."""
    if not title:
        return True
    core = title.rstrip("…").rstrip(" .,;:")
    if core and text.startswith(core):
        return True
    if core and core[1:] and _follows_a_statement(core, text):
        return True
    if ":" not in title or not set(_WORD.findall(title.lower())) <= set(_WORD.findall(text.lower())):
        return False
    name = title.split(":", 1)[0].strip()
    return _INTRODUCES.search(text) is not None or re.search(rf"\bwe\s+(?:\w+\s+){{1,3}}{re.escape(name)}\b", text,
                                                              re.I) is not None


def _follows_a_statement(core: str, text: str) -> bool:
    """``core`` is what a sentence of ``text`` says the paper does ("we study ...", "this book
    presents ...", "we investigate whether ..."), or a sentence without its lead-in ("To address
    this, ...", "It is shown that ..."); its first letter in either case."""
    gerund = re.match(r"^[A-Z][a-z]+ing\s+(?:at\s+)?(.+)$", core)  # "Investigating whether X", "Solving X"
    return _found_after(core, text) or (gerund is not None and _found_after(gerund.group(1), text))


def _found_after(core: str, text: str) -> bool:
    found = text.find(core[1:])
    while found > 0:
        before = text[max(0, found - 200) : found - 1]
        if text[found - 1].lower() == core[0].lower():
            if _STATED_BEFORE.search(before):
                return True
            start = max(before.rfind(". "), before.rfind("? "), before.rfind("! "))
            lead = before[start + 2 :] if start >= 0 else before if found <= 200 else None
            if lead and _LEAD_IN.fullmatch(lead) or lead == "" and len(core) >= 25:
                return True
        found = text.find(core[1:], found + 1)
    return False


_STATED_BEFORE = re.compile(r"\b(?:we|i)\s+(?:\w+\s+){0,3}(?:that,?\s+|on\s+|to\s+\w+\s+)?$"
                            r"|\b(?:this|our)\s+(?:[\w\-]+\s+){1,6}$", re.I)
