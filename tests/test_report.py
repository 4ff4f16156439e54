"""The review's report: counts against the store, the decided papers with reasons and notes,
escaping, the title setting, the map's topic colours, and report.md saying what report.html says."""

import re
import shutil
from html.parser import HTMLParser

import numpy as np
import pytest

import workbench
from workbench.cli import main
from workbench.errors import InputError
from workbench.review.report import label_colours, report_content, write_static_map
from workbench.store import AnnotationInputError, Store

EVIL = "<script>alert('x')</script> *bold* `tick` | pipe [link](http://x) # not a heading"


@pytest.fixture
def review(built, tmp_path):
    """A private copy of the built review (each test annotates its own)."""
    path = tmp_path / "my review"
    shutil.copytree(built, path)
    return workbench.open_review(path)


def _annotate(review):
    """Two reviewers' decisions, reasons and notes; returns the ids decided by ana."""
    ids = review.ids
    with review.store("ana") as s:
        s.decisions.decide(ids[0:4], "include", reason="on topic")
        s.decisions.decide(ids[4:7], "exclude", reason="no <b>human</b> feedback | wrong field")
        s.decisions.decide(ids[7], "maybe")
        s.notes.add(ids[0], "first line\n\n- not a list item\n# not a heading")
        s.notes.add(ids[4], EVIL)
    with review.store("bob") as s:
        s.decisions.decide(ids[0:2], "exclude", reason="too old")
        s.decisions.decide(ids[10], "include")
    return ids


class _Text(HTMLParser):
    """The text of an HTML body, and the text of its headings and code spans in order."""

    def __init__(self):
        super().__init__()
        self.parts, self.headings, self.codes, self.stack, self.in_body = [], [], [], [], False

    BLOCKS = frozenset({"p", "li", "ul", "h1", "h2", "h3", "h4", "table", "tr", "th", "td", "blockquote"})

    def handle_starttag(self, tag, attrs):
        self.in_body |= tag == "body"
        self.stack.append([tag, ""])
        if tag in self.BLOCKS:
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in self.BLOCKS:
            self.parts.append(" ")
        while self.stack:
            name, text = self.stack.pop()
            if self.stack:
                self.stack[-1][1] += text
            if re.fullmatch(r"h[1-6]", name):
                self.headings.append(" ".join(text.split()))
            if name == "code":
                self.codes.append(text)
            if name == tag:
                break

    def handle_data(self, data):
        if self.in_body or not self.stack:
            self.parts.append(data)
            if self.stack:
                self.stack[-1][1] += data

    @classmethod
    def of(cls, html):
        parser = cls()
        parser.feed(html if "<body" in html else f"<body>{html}</body>")
        parser.close()
        return parser

    @property
    def text(self):
        return " ".join("".join(self.parts).split())


def _markdown_as_html(text):
    markdown_it = pytest.importorskip("markdown_it")
    return markdown_it.MarkdownIt("commonmark").enable("table").render(text)


def _table(md):
    """The Screening table of report.md as {reviewer: [screened, included, excluded, maybe, undecided]}."""
    screening = md.split("## Screening", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in screening.splitlines() if line.startswith("| ") and not line.startswith("| Reviewer")]
    return {re.sub(r" \(this report\)$", "", cells[0]): [int(c) for c in cells[1:]]
            for cells in ([c.strip() for c in row.strip("|").split(" | ")] for row in rows)}


def test_counts_per_reviewer_match_the_store(review):
    _annotate(review)
    with review.store("ana") as s:  # a decision on a paper that is no longer in the review
        s.sync_papers([p.to_dict() for p in review.papers] + [{"id": "0dd0dd0dd0dd", "title": "Gone"}])
        s.decisions.decide("0dd0dd0dd0dd", "include")
    written = workbench.write_report(review, image=False, reviewer="ana")
    md = written["markdown"].read_text(encoding="utf-8")
    table = _table(md)
    assert list(table) == ["ana", "bob"], "the report's reviewer first, then the others"
    with Store.open(review.path) as store:
        for who, numbers in table.items():
            decided = [d.decision for pid in review.ids if (d := store.decisions.of(pid, reviewer=who))]
            expected = [len(decided), decided.count("include"), decided.count("exclude"),
                        decided.count("maybe"), len(review.ids) - len(decided)]
            assert numbers == expected, who
    assert "1 decision is on a paper no longer in the review (not counted)." in md
    disagree = sum(1 for pid in review.ids if len({d.decision for d in Store.open(review.path).decisions.votes(pid)}) > 1)
    assert f"differ on {disagree} papers." in md and disagree > 1
    html = _Text.of(written["html"].read_text(encoding="utf-8")).text
    for who, numbers in table.items():
        assert " ".join(map(str, numbers)) in html


def test_one_reviewer_gets_one_row_and_per_topic_screening(review):
    ids = review.ids
    with review.store("solo") as s:
        s.decisions.decide(ids[:5], "include")
    content = report_content(review, Store.open(review.path, reviewer="solo"))
    assert [c.reviewer for c in content.counts] == ["solo"] and content.counts[0].screened == 5
    assert sum(s.counts.include for s in content.sections) == 5
    assert sum(s.counts.total for s in content.sections) == len(ids)
    assert sorted(i for s in content.sections for i, _ in s.included) == sorted(ids[:5])


def test_decided_papers_are_listed_with_their_reasons_notes_and_the_other_reviewers(review):
    ids = _annotate(review)
    md = workbench.write_report(review, image=False, reviewer="ana")["markdown"].read_text(encoding="utf-8")
    sections = {m.group(1): m.group(2) for m in re.finditer(r"^## (\w+) \(\d+\)\n(.*?)(?=^## )", md, re.MULTILINE | re.DOTALL)}
    assert set(sections) == {"Included", "Excluded", "Maybe"}
    with Store.open(review.path) as store:
        for heading, decision in (("Included", "include"), ("Excluded", "exclude"), ("Maybe", "maybe")):
            listed = re.findall(r"^- .*?\(`(\w+)`\)", sections[heading], re.MULTILINE)
            mine = [pid for pid in review.ids if (d := store.decisions.of(pid, reviewer="ana")) and d.decision == decision]
            assert listed == mine, heading
    assert sections["Included"].count("Reason: on topic") == 4
    assert sections["Excluded"].count(r"Reason: no &lt;b&gt;human&lt;/b&gt; feedback \| wrong field") == 3
    assert "Note by ana:\n    > first line\n    > \n    > \\- not a list item\n    > \\# not a heading" in sections["Included"]
    assert "bob: excluded (too old)" in sections["Included"]
    assert f"`{ids[4]}`" in sections["Excluded"] and "&lt;script&gt;" in sections["Excluded"]


def test_everything_a_person_wrote_is_escaped(review):
    ids = _annotate(review)
    with review.store("<b>eve</b> | x") as s:
        s.topics.rename(int(review.labels[0]), EVIL)
        s.decisions.decide(ids[0], "include", reason=EVIL)
        s.tags.add(ids[0], "<i>tag</i>")
    review.refresh_topics()
    written = workbench.write_report(review, image=True, reviewer="<b>eve</b> | x", title=EVIL)
    html = written["html"].read_text(encoding="utf-8")
    rendered = _markdown_as_html(written["markdown"].read_text(encoding="utf-8"))
    for out in (html, rendered):
        assert "<script" not in out and "<b>" not in out and "<i>tag" not in out and "href=" not in out
        assert "&lt;script&gt;alert(" in out
    assert html.count("<h1>") == rendered.count("<h1>") == 1, "a '#' in text never makes a heading"
    # the seeds carry no year: no chart over time (the report says how many papers have one)
    assert not review.field.over_time().chartable
    assert html.count("<img ") == 3, "the map and the field's two figures (who, co-authorship), nothing else"
    # the Field part's trend table (a header, a row per topic) only where enough papers carry a year
    trend_rows = 1 + len(set(review.labels.tolist())) if review.field.over_time().trending else 0
    assert rendered.count("<tr>") == html.count("<tr>") == 4 + trend_rows, "a '|' in a name never splits a table"
    assert "<td>&lt;b&gt;eve&lt;/b&gt; | x (this report)</td>" in rendered


def test_markdown_and_html_say_the_same(review):
    _annotate(review)
    with review.store("ana") as s:
        s.tags.add(review.ids[2], "rlhf", "to read")
        s.topics.rename(int(review.labels[0]), EVIL)
    review.refresh_topics()
    written = workbench.write_report(review, image=False, reviewer="ana", title="A *review* of <RLHF>")
    md = _Text.of(_markdown_as_html(written["markdown"].read_text(encoding="utf-8")))
    html = _Text.of(written["html"].read_text(encoding="utf-8"))
    assert md.headings == html.headings
    assert md.codes == html.codes
    assert md.text == html.text
    assert html.headings[0] == "A *review* of <RLHF>"
    assert any(EVIL in h for h in html.headings), "the renamed topic's label, as written"


def test_the_title_is_a_setting_of_the_review(review, capsys):
    path = str(review.path)
    heading = lambda: workbench.write_report(review, image=False)["markdown"].read_text(encoding="utf-8").splitlines()[0]
    assert heading() == "# my review", "default: the folder's name"
    assert main(["title", "A  survey of", "RLHF", "--review", path, "--reviewer", "ana"]) == 0
    assert "'A survey of RLHF'" in capsys.readouterr().out
    assert heading() == "# A survey of RLHF"
    assert "<title>A survey of RLHF</title>" in (review.path / "report" / "report.html").read_text(encoding="utf-8")
    assert main(["title", "--review", path]) == 0 and "'A survey of RLHF'" in capsys.readouterr().out
    with Store.open(review.path, reviewer="ana") as store:
        assert store.history(limit=1)[0].summary == "title set to 'A survey of RLHF'"
        store.undo()
        assert store.settings.read() == {}
    assert heading() == "# my review"
    workbench.write_report(review, image=False, title="Set from a notebook")
    with Store.open(review.path) as store:
        assert store.settings.read() == {"title": "Set from a notebook"}
    assert main(["title", "--clear", "--review", path]) == 0 and heading() == "# my review"
    assert main(["title", "x", "--clear", "--review", path]) == 1
    assert "not both" in capsys.readouterr().err


def test_settings_refuse_unknown_names_and_control_characters(review):
    with Store.open(review.path) as store:
        with pytest.raises(AnnotationInputError, match="no review setting 'titel'; the settings are: title"):
            store.settings.set("titel", "x")
        with pytest.raises(AnnotationInputError, match="control characters"):
            store.settings.set("title", "a\x1b[31mred")
        with pytest.raises(AnnotationInputError, match="at most 200"):
            store.settings.set("title", "x" * 201)
        assert store.settings.set("title", "  ") is None and store.settings.read() == {}


def test_the_map_takes_colours_by_topic_id(review, tmp_path):
    topics = sorted({int(t) for t in review.labels if t >= 0})
    palette = ["#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#000000"]
    colours = {t: palette[i % len(palette)] for i, t in enumerate(topics)}
    by_label = label_colours(review, colours)
    labels = review.topic_labels()
    assert by_label == {f"{t}: {labels[t]}": colours[t] for t in topics}
    with pytest.raises(InputError, match=rf"no colour for topics \[{topics[-1]}\]"):
        label_colours(review, {t: c for t, c in colours.items() if t != topics[-1]})
    matplotlib_image = pytest.importorskip("matplotlib.image")
    pixels = matplotlib_image.imread(write_static_map(review, tmp_path / "map.png", "t", colours))[..., :3]
    for t in topics[:3]:
        rgb = np.array([int(colours[t][i:i + 2], 16) / 255 for i in (1, 3, 5)])
        assert (np.abs(pixels - rgb).max(axis=-1) < 0.02).sum() > 20, f"topic {t}'s points in {colours[t]}"


def test_stopping_claims_are_logged_in_the_store_and_the_latest_is_in_the_report(review):
    advice = {"rule": "hypergeometric", "stop": True,
              "claim": "recall >= 95 %  with 95 % confidence <b>", "numbers": {"p": 0.031, "n_read": 40}}
    with review.store("ana") as s:
        assert s.stopping.claims() == []
        s.stopping.log({"rule": "irrelevant-in-a-row", "stop": False, "claim": "12 of 50 in a row",
                              "numbers": {"run": 12}})
        logged = s.stopping.log(advice)
        assert s.history(limit=1)[0].summary == "stopping claim (hypergeometric): recall >= 95 % with 95 % confidence <b>"
        claims = s.stopping.claims()
    assert [c.rule for c in claims] == ["irrelevant-in-a-row", "hypergeometric"]
    assert claims[-1] == logged and logged.reviewer == "ana" and logged.numbers == {"p": 0.031, "n_read": 40}
    assert logged.claim == "recall >= 95 % with 95 % confidence <b>" and logged.stop is True
    written = workbench.write_report(review, image=False, reviewer="ana")
    md = written["markdown"].read_text(encoding="utf-8")
    expected = (f"Stopping rule (hypergeometric, logged {logged.at[:10]} by ana): may stop. "
                "recall >= 95 % with 95 % confidence <b>")
    assert md.count("Stopping rule (") == 1
    assert expected in _Text.of(_markdown_as_html(md)).text
    assert expected in _Text.of(written["html"].read_text(encoding="utf-8")).text
    with review.store("ana") as s:
        s.undo()
        assert [c.rule for c in s.stopping.claims()] == ["irrelevant-in-a-row"]


@pytest.mark.parametrize("advice, match", [
    ("stop now", "expected a mapping"),
    ({"rule": "hypergeometric", "stop": "yes", "claim": "x"}, "stop \\(True or False\\)"),
    ({"rule": "hypergeometric", "stop": True, "claim": "  "}, "not blank"),
    ({"rule": "hypergeometric", "stop": True, "claim": "x", "numbers": {"p": float("nan")}}, "cannot be kept as JSON"),
])
def test_a_malformed_stopping_claim_is_refused_and_nothing_is_logged(review, advice, match):
    with Store.open(review.path, reviewer="ana") as store:
        with pytest.raises(AnnotationInputError, match=match):
            store.stopping.log(advice)
        assert store.stopping.claims() == []
