"""The review's report: ``report.md`` and ``report.html`` with the exports beside them
(:mod:`._write`), from its content (:mod:`._content`, :mod:`._screening`, :mod:`._field`), the
static map (:mod:`._map`) and the rendering to Markdown and HTML (:mod:`._render`)."""

from ._write import label_colours, report_content, write_report, write_static_map

__all__ = ["label_colours", "report_content", "write_report", "write_static_map"]
