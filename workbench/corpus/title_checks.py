"""Does a title say anything its abstract does not? :func:`title_repeats_abstract`.

A reader sets ``Paper.title_derived`` with it, so a title made from the abstract
(:func:`workbench.corpus.titles.derive_title`) and written into an export is still known as such when the
export is read. :data:`LEAD_IN` (the lead-ins that say where, not what) is shared with the titles.
"""

from __future__ import annotations

import re


__all__ = ["LEAD_IN", "title_repeats_abstract"]

# Lead-ins that say where, not what: "To address these challenges, ...", "In this paper, ...".
LEAD_IN = re.compile(
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
_GERUND = re.compile(r"^[A-Z][a-z]+ing\s+(?:at\s+)?(.+)$")
_WORD = re.compile(r"\w+")
_INTRODUCES = re.compile(
    r"\b(?:we|this (?:paper|work|report))\s+(?:\w+\s+)?(?:introduce|propose|present|develop|release|build|construct"
    r"|design|unveil|describe)s?\b",
    re.I,
)


def title_repeats_abstract(title: str, text: str) -> bool:
    """Whether ``title`` says nothing ``text`` does not: made from it (:func:`workbench.corpus.titles.derive_title`: the
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
    if ":" not in title:
        return False
    words, lowered = set(_WORD.findall(title.lower())), text.lower()
    # (a word not even in the text as a substring settles it before the text's words are listed)
    if not all(word in lowered for word in words) or not words <= set(_WORD.findall(lowered)):
        return False
    name = title.split(":", 1)[0].strip()
    return _INTRODUCES.search(text) is not None or _we_did_to(name, text)


def _we_did_to(name: str, text: str) -> bool:
    """"we (verb) (the) NAME" in ``text``."""
    return re.search(rf"\bwe\s+(?:\w+\s+){{1,3}}{re.escape(name)}\b", text, re.I) is not None


def _follows_a_statement(core: str, text: str) -> bool:
    """``core`` is what a sentence of ``text`` says the paper does ("we study ...", "this book
    presents ...", "we investigate whether ..."), or a sentence without its lead-in ("To address
    this, ...", "It is shown that ..."); its first letter in either case."""
    gerund = _GERUND.match(core)  # "Investigating whether X", "Solving X"
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
            if lead and LEAD_IN.fullmatch(lead) or lead == "" and len(core) >= 25:
                return True
        found = text.find(core[1:], found + 1)
    return False


_STATED_BEFORE = re.compile(r"\b(?:we|i)\s+(?:\w+\s+){0,3}(?:that,?\s+|on\s+|to\s+\w+\s+)?$"
                            r"|\b(?:this|our)\s+(?:[\w\-]+\s+){1,6}$", re.I)
