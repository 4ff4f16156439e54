"""The review's report: ``report.md`` and ``report.html`` with the exports beside them
(:mod:`._write`), from its content (:mod:`._content`, :mod:`._screening`, :mod:`._field`), the
static map (:mod:`._map`) and the rendering to Markdown and HTML (:mod:`._render`)."""
