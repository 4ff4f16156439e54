"""How work runs, never what it makes: work in two processes (:mod:`.halves`), memory given
back to the system (:mod:`.memory`), files written whole and local file systems (:mod:`.fsutil`),
and numba's compiled functions kept on disk (:mod:`.numba_cache`)."""
