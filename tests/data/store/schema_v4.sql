-- The store's schema at version 4 (before duplicate verdicts), as workbench 0.x made it.

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

CREATE TABLE decisions_v4 (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    reviewer TEXT NOT NULL,
    stage TEXT NOT NULL DEFAULT 'title_abstract' CHECK (stage IN ('title_abstract', 'full_text')),
    decision TEXT NOT NULL CHECK (decision IN ('include', 'exclude', 'maybe')),
    reason TEXT,
    decided_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, reviewer, stage)
) WITHOUT ROWID;
INSERT INTO decisions_v4 (paper_id, reviewer, stage, decision, reason, decided_at)
    SELECT paper_id, reviewer, 'title_abstract', decision, reason, decided_at FROM decisions;
DROP TABLE decisions;
ALTER TABLE decisions_v4 RENAME TO decisions;
CREATE INDEX decisions_by_stage ON decisions(stage, reviewer);

CREATE TABLE decision_context_v4 (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    reviewer TEXT NOT NULL,
    stage TEXT NOT NULL DEFAULT 'title_abstract' CHECK (stage IN ('title_abstract', 'full_text')),
    rank INTEGER CHECK (rank IS NULL OR rank >= 1),
    score REAL,
    model TEXT,
    model_version TEXT,
    bulk INTEGER NOT NULL DEFAULT 0 CHECK (bulk IN (0, 1)),
    sampled INTEGER NOT NULL DEFAULT 0 CHECK (sampled IN (0, 1)),
    PRIMARY KEY (paper_id, reviewer, stage)
) WITHOUT ROWID;
INSERT INTO decision_context_v4 SELECT paper_id, reviewer, 'title_abstract', rank, score, model,
    model_version, bulk, sampled FROM decision_context;
DROP TABLE decision_context;
ALTER TABLE decision_context_v4 RENAME TO decision_context;

CREATE TABLE paper_tags_v4 (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    tag TEXT NOT NULL REFERENCES tag_vocab(name),
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, tag, reviewer)
) WITHOUT ROWID;
INSERT INTO paper_tags_v4 SELECT paper_id, tag, reviewer, created_at FROM paper_tags;
DROP TABLE paper_tags;
ALTER TABLE paper_tags_v4 RENAME TO paper_tags;
CREATE INDEX paper_tags_by_tag ON paper_tags(tag);

CREATE TABLE final_decisions (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    stage TEXT NOT NULL CHECK (stage IN ('title_abstract', 'full_text')),
    decision TEXT NOT NULL CHECK (decision IN ('include', 'exclude', 'maybe')),
    reason TEXT,
    resolved_by TEXT NOT NULL,
    resolved_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, stage)
) WITHOUT ROWID;

CREATE TABLE exclusion_reasons (
    name TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    position INTEGER NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE sources (
    path TEXT PRIMARY KEY,
    kind TEXT NOT NULL DEFAULT 'database' CHECK (kind IN ('database', 'register')),
    name TEXT NOT NULL,
    query TEXT,
    searched_on TEXT,
    format TEXT NOT NULL DEFAULT '',
    identified INTEGER NOT NULL DEFAULT 0 CHECK (identified >= 0),
    skipped INTEGER NOT NULL DEFAULT 0 CHECK (skipped >= 0),
    merged INTEGER NOT NULL DEFAULT 0 CHECK (merged >= 0),
    in_build INTEGER NOT NULL DEFAULT 1 CHECK (in_build IN (0, 1)),
    recorded_at TEXT NOT NULL
)
;
PRAGMA user_version = 4;
