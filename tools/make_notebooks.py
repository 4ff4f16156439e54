"""Write the four notebooks (thin: imports, one parameters cell, calls into workbench, display).

Run after changing a notebook's cells here: ``python tools/make_notebooks.py``. The notebooks
are committed without outputs; ``tests/test_notebooks.py`` checks they stay thin.
"""

from pathlib import Path

import nbformat as nbf

HERE = Path(__file__).resolve().parents[1] / "notebooks"

COMMON_PARAMS = '''review_dir = "../review"      # the review folder (built here if missing)
sources = ["../seeds"]        # files or folders of abstracts, used when building
embedder = "minilm"           # minilm | static | tfidf
seed = 42
reviewer = None               # your name, e.g. "Ana"; None: $WORKBENCH_REVIEWER, else asked before your first change when the review is screened as a team
rebuild = False               # True: rebuild the review from sources first'''

OPEN = '''review = workbench.open_or_build(review_dir, sources, rebuild=rebuild, embedder=embedder, seed=seed)
session = Session.open(review, reviewer=reviewer)
review'''

NOTEBOOKS = {
    "01_explore.ipynb": [
        ("markdown", "# Explore the map\n\nTopics of the review (look at them as k themes, save the themes you like, check how stable each topic is across seeds), the map (colour by topic, decision, predicted relevance or tag; drag to select with the lasso or a box), actions on the selection (tag, note, decide, decide a whole topic or lasso in bulk after a preview, send its undecided papers to the screening queue, re-cluster), search (keywords and meaning), and topic renames and merges. Everything you do is saved at once in `annotations.sqlite`; **Undo** takes back your last change (a saved set of themes too, with its files) and **Reload** reads what other notebooks or the command line changed. Each button answers beside itself; Enter in a box does what its button does."),
        ("code", "import workbench\nfrom workbench.widgets import Session, explore, topics"),
        ("parameters", COMMON_PARAMS + '\nactions = []                  # scripted actions for headless runs, e.g. [{"themes": 8}, {"select": "search:reward model", "tag": "rlhf"}, {"select": "topic:2", "screen_these": True}, {"select": "topic:3", "bulk": "exclude"}, {"colour": "relevance"}]'),
        ("code", OPEN),
        ("markdown", "## Topics"),
        ("code", "topics(session).widget"),
        ("markdown", "## The map\n\nDrag on the map to select papers (switch between lasso and box above it), or click a topic in the legend; the selection appears below as a table (click a header to sort it, a row to open the paper and light it up on the map) with the actions. **Decide in bulk…** includes or excludes the whole selection (a topic: click it in the legend; or a lasso) in one action: it first says how many papers it touches and how many you already decided (left as they are unless you tick *also change papers I already decided*), then waits for Yes; one **Undo** takes it all back. Papers decided in bulk are marked so, and the stopping estimate in `02_tag_and_screen` does not count them as read. **Screen these next** (*Screen topic N next* for a topic) hands the selection's undecided papers to the queue in `02_tag_and_screen`. *Colour by relevance* shows the ranking of the undecided papers (darkest: most likely relevant) once you have included one paper and excluded one. Hover a point for its year, authors and the start of its abstract. Search lights up keyword hits and the papers nearest in meaning. Colours follow the topic numbers, the same in `map.html` and the report."),
        ("code", "view = explore(session)\nview.play(actions)\nview.widget"),
    ],
    "02_tag_and_screen.ipynb": [
        ("markdown", "# Tag and screen\n\nOne paper at a time, the undecided ones first, **most likely relevant first** once you have included one paper and excluded one (a model refitted after every decision; each card says why; before that, one paper per topic). The card holds everything at once: the paper, its actions, its point on the map (ringed; click a point to open its paper) and the **progress** panel: relevant papers found against papers read, beside the line a random order would follow, and in one sentence how many relevant papers are estimated still unread and whether you may stop (details and **Log this claim** on demand). Keys (click the paper first; never while you type in a box): **j**/→ next, **k**/← previous, **1–9** toggle a tag, **i** include, **e** exclude, **m** maybe, **u** undo (it says what it undid and shows that paper). **Decide, then give a reason**: after **e** the next paper shows at once, and the reason chips (the team's exclusion reasons) or the reason box (Enter) go to the paper just decided, named above them, until your next decision. Enter in a box does what its button does, Ctrl+Enter saves a note. Every click is saved at once; there is no save button. Papers sent from the map in 01 (**Screen these next**) are under *show: sent from the map*; **Reload** reads changes made elsewhere.\n\n**As a team** (blind mode, two reviewers per paper, or several people screening): type your name in *screening as* before your first decision (or set `reviewer` below); it is remembered for this kernel. *show: conflicts to resolve* lists the papers reviewers disagree on (include vs maybe too), each with every reviewer's decision and reason side by side; **Resolve** records the final decision with your name and why (**u** takes it back). In blind mode you see another reviewer's decision, tags and notes on a paper only once you have both screened it. The review's inclusion criteria stand under the card; the reason chips are the team's exclusion reasons (free text still allowed). *stage: full text* screens the papers included at title/abstract: include, exclude with a reason, or not retrieved.\n\n**A review that lives** (folded under the queue): *Add a new search* takes the exports of a rerun search (one file per line) with the database, the date it was searched and the query (PRISMA-S), and **Add to the review** reads them: records that are papers already in the review join them (decisions, tags and notes stay), new papers are placed on the map as it is (nothing refitted) and the queue switches to *show: new since* today, the papers nobody has decided yet; it then says how many were new, which screened papers were found again, and from which source. *Possible duplicates* shows the pairs of papers that may be one (titles alike, kept apart by the rules) side by side: **Same paper** merges them (the annotations follow), **Different** keeps them apart in every later update and rebuild, **Undo** takes back either. `workbench update` and `workbench duplicates` do the same from the command line."),
        ("code", "import workbench\nfrom workbench.widgets import Session, agreement_table, screen"),
        ("parameters", COMMON_PARAMS + '\nshow = "undecided"            # undecided | all | untagged | sent | include | exclude | maybe | new (papers of the latest update) | new since YYYY-MM-DD\ntopic = None                  # a topic number, or None for all\nsearch = ""                   # keywords to filter by and highlight\norder = None                  # relevance | one per topic | random | map (None: relevance once there is an include and an exclude)\nstage = "title_abstract"      # title_abstract | full_text (the papers included at title/abstract)\nactions = []                  # scripted actions for headless runs, e.g. [{"add_tag": "rlhf"}, {"decide": "include"}, {"show": "conflicts"}, {"resolve": "include", "reason": "on topic"}, {"update": "../pubmed-2025.ris", "database": "PubMed", "searched": "2025-03-01"}, {"duplicates": "same"}]'),
        ("code", OPEN),
        ("code", "view = screen(session, show=show, topic=topic, search=search, order=order, stage=stage)\nview.play(actions)\nview.widget"),
        ("markdown", "## Agreement\n\nPer pair of reviewers on the papers both screened: raw agreement, Cohen's kappa and Gwet's AC1 (steadier than kappa when includes are rare), and Krippendorff's alpha across all reviewers (any overlap). Run the cell again for the latest numbers; `workbench agreement` prints the same."),
        ("code", "agreement_table(review, stage)"),
    ],
    "03_compare.ipynb": [
        ("markdown", "# Compare papers\n\nTwo to four papers side by side: shared key terms in green, each paper's distinctive terms in orange, pairwise similarity and nearest neighbours. Pick them by id, by search, or take the selection you made on the map in `01_explore`. A note written here is attached to every compared paper; **Undo** takes back your last change."),
        ("code", "import workbench\nfrom workbench.widgets import Session, compare"),
        ("parameters", COMMON_PARAMS + '\nids = []                      # 2-4 ids or id prefixes; empty: the map selection, else the first papers of the largest topic\nnote = ""                     # scripted: a note to attach to the compared papers'),
        ("code", OPEN),
        ("code", "chosen = ids or session.load_selection()[:4] or list(review.papers_frame().query('topic == topic.mode()[0]').id[:3])\nview = compare(session, chosen)\nview.note.value = note\nview.on_note() if note else None\nview.widget"),
    ],
    "04_report.ipynb": [
        ("markdown", "# Report\n\nThe review's report: how many papers each reviewer screened, included, excluded, marked maybe and left undecided; the papers you included, excluded or marked maybe, with your reasons, the notes on them and what the other reviewers decided; and per topic its label, size, top words, representative papers, included and tagged papers and notes. Writes `report/` in the review folder: `report.md` and `report.html` (the same report), `map.png` (datamapplot) and the exports (CSV, BibTeX, RIS, JSONL).\n\nThe heading is the review's title: set it with `title` below or `workbench title TEXT` on the command line (it is kept with the review); by default the folder's name."),
        ("code", "import workbench\nfrom IPython.display import HTML, Image, Markdown\nfrom workbench.widgets import Session, prisma_figure"),
        ("parameters", COMMON_PARAMS + '\nimage = True                  # draw the static map (datamapplot)\ntitle = None                  # the review\'s title, kept for later reports; None: the one set before, else the folder name'),
        ("code", OPEN),
        ("code", "written = review.write_report(image=image, reviewer=session.reviewer, title=title)\nwritten"),
        ("code", "Image(filename=str(written['map'])) if 'map' in written else None"),
        ("code", "Markdown(written['markdown'].read_text(encoding='utf-8'))"),
        ("markdown", "## PRISMA 2020 flow diagram\n\nRecords identified per source, duplicates removed, records screened and excluded, reports sought, not retrieved, assessed and excluded per reason, studies included: from the build's sources and every decision in the store (final decisions settle conflicts). A review updated since its build (a new search added in 02 or with `workbench update`) gets PRISMA 2020's diagram for updated reviews, of its latest update: the studies included in the previous version, the new records per source, the new duplicates removed, the new records screened, and the new and total studies included (`prisma_figure(review, update=False)`: the plain diagram over every record). Written to `report/prisma.svg` and `report/prisma.png`; `workbench prisma` draws the same."),
        ("code", "prisma_figure(review)"),
    ],
}


def build() -> None:
    HERE.mkdir(exist_ok=True)
    for name, cells in NOTEBOOKS.items():
        nb = nbf.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        for kind, source in cells:
            if kind == "markdown":
                nb.cells.append(nbf.v4.new_markdown_cell(source))
            else:
                cell = nbf.v4.new_code_cell(source)
                if kind == "parameters":
                    cell.metadata["tags"] = ["parameters"]
                nb.cells.append(cell)
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"{name[:2]}-{i:02d}"
        nbf.write(nb, HERE / name)


if __name__ == "__main__":
    build()
