"""Give memory back to the operating system after a stage's transient peak.

Tokenising tens of thousands of abstracts for c-TF-IDF allocates (and frees) hundreds of MB of
small Python strings. glibc keeps freed heap pages, so without a trim the process's resident
size stays at that peak for the rest of a build, and the next stage's peak lands on top of it.
"""

from __future__ import annotations

import ctypes
import sys

__all__ = ["release_free_memory"]


def release_free_memory() -> None:
    """``malloc_trim(0)`` where glibc provides it; a no-op elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # musl or another libc: nothing to trim
        pass
