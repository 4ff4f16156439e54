-- The workbench annotation store, schema version 3 (version 2, and the screening records of
-- each decision: rank, score, model, bulk, sampled), before version 4 added stages, tags per
-- reviewer, final decisions, exclusion reasons and sources (reviewing as a team).
-- Kept verbatim so the tests can build a real v3 store and open it with the current code.
PRAGMA application_id = 1464030036;

CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE papers (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    abstract TEXT NOT NULL DEFAULT '',
    authors TEXT NOT NULL DEFAULT '[]',
    year INTEGER,
    doi TEXT,
    venue TEXT,
    url TEXT,
    keywords TEXT NOT NULL DEFAULT '[]',
    collection TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT '',
    in_corpus INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE tag_vocab (
    name TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    colour TEXT,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE paper_tags (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    tag TEXT NOT NULL REFERENCES tag_vocab(name),
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, tag)
) WITHOUT ROWID;
CREATE INDEX paper_tags_by_tag ON paper_tags(tag);

CREATE TABLE notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uid TEXT NOT NULL UNIQUE,
    paper_id TEXT NOT NULL REFERENCES papers(id),
    text TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX notes_by_paper ON notes(paper_id);

CREATE TABLE decisions (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    reviewer TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('include', 'exclude', 'maybe')),
    reason TEXT,
    decided_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, reviewer)
) WITHOUT ROWID;

CREATE TABLE topic_ids (tid INTEGER PRIMARY KEY, first_run INTEGER);

CREATE TABLE topic_runs (
    run INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    n_papers INTEGER NOT NULL,
    n_topics INTEGER NOT NULL,
    report TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE run_topics (
    run INTEGER NOT NULL REFERENCES topic_runs(run),
    topic INTEGER NOT NULL,
    tid INTEGER NOT NULL REFERENCES topic_ids(tid),
    label TEXT NOT NULL DEFAULT '',
    words TEXT NOT NULL DEFAULT '[]',
    size INTEGER NOT NULL,
    PRIMARY KEY (run, topic)
);

CREATE TABLE run_assignments (
    run INTEGER NOT NULL REFERENCES topic_runs(run),
    paper_id TEXT NOT NULL,
    topic INTEGER NOT NULL,
    PRIMARY KEY (run, paper_id)
) WITHOUT ROWID;

CREATE TABLE topic_edits (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('rename', 'merge', 'move')),
    tid INTEGER REFERENCES topic_ids(tid),
    into_tid INTEGER REFERENCES topic_ids(tid),
    paper_id TEXT REFERENCES papers(id),
    label TEXT,
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    action TEXT NOT NULL,
    summary TEXT NOT NULL,
    undoable INTEGER NOT NULL DEFAULT 1,
    undone_by INTEGER REFERENCES history(id)
);
CREATE INDEX history_by_reviewer ON history(reviewer, id);

CREATE TABLE history_changes (
    history_id INTEGER NOT NULL REFERENCES history(id),
    seq INTEGER NOT NULL,
    tbl TEXT NOT NULL,
    key TEXT NOT NULL,
    before TEXT,
    after TEXT,
    PRIMARY KEY (history_id, seq)
) WITHOUT ROWID;

CREATE TABLE decision_context (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    reviewer TEXT NOT NULL,
    rank INTEGER CHECK (rank IS NULL OR rank >= 1),
    score REAL,
    model TEXT,
    model_version TEXT,
    bulk INTEGER NOT NULL DEFAULT 0 CHECK (bulk IN (0, 1)),
    sampled INTEGER NOT NULL DEFAULT 0 CHECK (sampled IN (0, 1)),
    PRIMARY KEY (paper_id, reviewer)
) WITHOUT ROWID;

PRAGMA user_version = 3;
