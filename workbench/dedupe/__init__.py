"""Deduplication: which records are the same paper, and the one record made of them.

- :mod:`.rules`: the exact rules (shared identifiers) and the fuzzy ones (title, year, first
  author), :func:`~.rules.find_duplicates` and :func:`~.rules.deduplicate`;
- :mod:`.keys`: the keys a record is compared by.
"""

from .rules import *  # noqa: F401,F403  (its __all__)
from .rules import __all__
