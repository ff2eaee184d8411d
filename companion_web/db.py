"""The SQLite database: one connection per request (or per app context), WAL mode.

As in the Flask tutorial, ``get_db()`` opens the connection on first use within an app
context and ``close_db`` closes it at teardown. Code running outside a request (the
camera feed's thread, ``run_server`` at start-up) pushes an app context first.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from flask import Flask, current_app, g


# Kept here rather than in a .sql file so that it ships with the module in any install.
# Raw tokens are never stored: seats and host sessions keep the sha256 of their token.
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id        TEXT PRIMARY KEY,          -- short random id; part of the join URL, not a secret
    created   REAL NOT NULL,
    edition   TEXT NOT NULL,             -- saboteur | saboteur2
    options   TEXT NOT NULL,             -- JSON list of rule options (engine.options)
    version   INTEGER NOT NULL,          -- bumped by every change; SSE event ids derive from it
    engine    TEXT,                      -- Game.to_json() after the latest change (NULL before the first round)
    tabletop  TEXT NOT NULL,             -- the companion's own state (round log for corrections, contested cards)
    finished  INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS seats (
    id          INTEGER PRIMARY KEY,
    game_id     TEXT NOT NULL REFERENCES games(id),
    slot        INTEGER NOT NULL,        -- position around the table, clockwise
    name        TEXT NOT NULL,
    token_hash  TEXT UNIQUE,             -- sha256 hex of the seat token; NULL while the seat waits for a new phone
    joined      REAL NOT NULL,
    UNIQUE (game_id, slot)
);

-- Append-only: what was asked, by whom, at which version.
CREATE TABLE IF NOT EXISTS changes (
    game_id  TEXT NOT NULL REFERENCES games(id),
    version  INTEGER NOT NULL,
    at       REAL NOT NULL,
    actor    TEXT NOT NULL,
    command  TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
);

-- Append-only: the event log the screens show; private_to names the only seat that may read a row.
CREATE TABLE IF NOT EXISTS events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id     TEXT NOT NULL REFERENCES games(id),
    version     INTEGER NOT NULL,
    at          REAL NOT NULL,
    private_to  INTEGER,
    kind        TEXT NOT NULL,
    params      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_game ON events (game_id, id);

CREATE TABLE IF NOT EXISTS host_sessions (
    token_hash  TEXT PRIMARY KEY,
    created     REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS host_links (
    code_hash  TEXT PRIMARY KEY,
    created    REAL NOT NULL,
    expires    REAL NOT NULL,
    used       REAL
);

CREATE TRIGGER IF NOT EXISTS changes_append_only_u BEFORE UPDATE ON changes
BEGIN SELECT RAISE(ABORT, 'the change log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS changes_append_only_d BEFORE DELETE ON changes
BEGIN SELECT RAISE(ABORT, 'the change log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_u BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_d BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""


class DatabaseError(RuntimeError):
    """The database cannot be opened or written; the message is one sentence for the user."""


def connect(path: str | Path) -> sqlite3.Connection:
    try:
        # isolation_level=None: transactions are explicit (see ``transaction``), so a
        # read never holds a lock by accident while an SSE stream or a slow phone waits.
        conn = sqlite3.connect(str(path), timeout=10, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        # WAL lets readers (every SSE render, every page) proceed while one writer commits.
        # synchronous=NORMAL in WAL mode keeps every committed change across a killed
        # process; only a power cut may lose the last few, which a card game can bear.
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=10000")
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot open the database {path}: {exc}") from None
    return conn


def init_db(path: str | Path) -> None:
    """Create the tables if they are missing (idempotent)."""
    conn = connect(path)
    try:
        conn.executescript(SCHEMA)
    except sqlite3.DatabaseError as exc:
        raise DatabaseError(f"{path} is not a Tunnel Vision database ({exc})") from None
    finally:
        conn.close()


def get_db() -> sqlite3.Connection:
    if "db" not in g:
        g.db = connect(current_app.config["DATABASE"])
    return g.db


def close_db(_exc: BaseException | None = None) -> None:
    conn = g.pop("db", None)
    if conn is not None:
        conn.close()


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: everything inside commits together or not at all."""
    # IMMEDIATE takes the write lock up front, so two writers queue instead of failing
    # halfway with "database is locked" when one tries to upgrade a read lock.
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


def init_app(app: Flask) -> None:
    init_db(app.config["DATABASE"])
    # One connection stays open for the life of the app, only so that closing a request's
    # connection is never the last close: SQLite checkpoints and deletes the WAL on the
    # last close, which made every request several milliseconds slower.
    app.extensions["tunnelvision.db-keeper"] = connect(app.config["DATABASE"])
    app.teardown_appcontext(close_db)
