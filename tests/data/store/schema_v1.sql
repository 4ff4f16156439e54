-- The workbench annotation store, schema version 1 (the first released layout).
-- Kept verbatim so the tests can build a real v1 store and open it with the current code.
-- v1 kept one decision per paper, tags without a vocabulary, topic names keyed by the raw topic
-- number (so they were lost on a refit) and a free-text log instead of an undoable history.
PRAGMA application_id = 1464030036;
PRAGMA journal_mode = WAL;

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

CREATE TABLE tags (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    tag TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, tag)
);

CREATE TABLE notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    paper_id TEXT NOT NULL REFERENCES papers(id),
    text TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE decisions (
    paper_id TEXT PRIMARY KEY REFERENCES papers(id),
    decision TEXT NOT NULL CHECK (decision IN ('include', 'exclude', 'maybe')),
    reason TEXT,
    reviewer TEXT NOT NULL,
    decided_at TEXT NOT NULL
);

CREATE TABLE paper_topics (
    paper_id TEXT PRIMARY KEY REFERENCES papers(id),
    topic INTEGER NOT NULL
);

CREATE TABLE topic_names (
    topic INTEGER PRIMARY KEY,
    label TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    at TEXT NOT NULL
);

CREATE TABLE log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    action TEXT NOT NULL,
    paper_id TEXT,
    detail TEXT NOT NULL DEFAULT ''
);

PRAGMA user_version = 1;
