"""The store: WAL mode, append-only logs, optimistic commits, unreadable files."""

from __future__ import annotations

import sqlite3

import pytest

from companion_web.db import DatabaseError, connect, init_db, transaction
from companion_web.errors import GameError
from companion_web.snapshot import LogEntry
from companion_web.store import Change, Store


def test_the_database_runs_in_wal_mode(tmp_path):
    path = tmp_path / "c.db"
    init_db(path)
    conn = connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_the_change_and_event_logs_are_append_only(tmp_path):
    path = tmp_path / "c.db"
    init_db(path)
    store = Store(connect(path))
    store.create_game("g1", "saboteur", [])
    snap = store.load("g1")
    after, _ = store.commit(snap, Change("host", {"op": "x"}, None, snap.tabletop, (LogEntry("joined", {"name": "A"}),)))
    assert after.version == 1 and after.log[0].params == {"name": "A"}
    for sql in ("UPDATE events SET kind = 'x'", "DELETE FROM events", "UPDATE changes SET actor = 'x'",
                "DELETE FROM changes"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            store.conn.execute(sql)


def test_a_commit_on_a_stale_snapshot_is_refused_and_writes_nothing(tmp_path):
    path = tmp_path / "c.db"
    init_db(path)
    store = Store(connect(path))
    store.create_game("g1", "saboteur", [])
    stale = store.load("g1")
    store.commit(stale, Change("host", {"op": "first"}, None, stale.tabletop))
    with pytest.raises(GameError) as refused:
        store.commit(stale, Change("host", {"op": "second"}, None, stale.tabletop, (LogEntry("joined", {}),)))
    assert refused.value.status == 409
    assert store.conn.execute("SELECT count(*) FROM changes").fetchone()[0] == 1
    assert store.conn.execute("SELECT count(*) FROM events").fetchone()[0] == 0


def test_a_failed_transaction_rolls_back(tmp_path):
    path = tmp_path / "c.db"
    init_db(path)
    conn = connect(path)
    with pytest.raises(RuntimeError):
        with transaction(conn):
            conn.execute("INSERT INTO host_sessions VALUES ('h', 0)")
            raise RuntimeError("boom")
    assert conn.execute("SELECT count(*) FROM host_sessions").fetchone()[0] == 0


def test_a_file_that_is_not_a_database_is_one_clear_sentence(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"shopping list: " * 200)
    with pytest.raises(DatabaseError, match="cannot open the database .*not a database"):
        init_db(path)
