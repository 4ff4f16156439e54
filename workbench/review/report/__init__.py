"""The review's report: ``report.md`` and ``report.html`` with the exports beside them
(:mod:`._write`), from its content (:mod:`._content`, :mod:`._screening`, :mod:`._field`), the
static map (:mod:`._map`) and the rendering to Markdown and HTML (:mod:`._render`); its "Methods"
part and AI-use statement, from the log (:mod:`._methods_facts`, :mod:`._methods`)."""

from ._methods import Methods, review_methods
from ._methods_facts import MethodsFacts
from ._write import label_colours, report_content, write_report, write_static_map

__all__ = ["Methods", "MethodsFacts", "label_colours", "report_content", "review_methods", "write_report",
           "write_static_map"]
