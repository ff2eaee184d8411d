"""Games in SQLite: load a snapshot, commit a change (state, change log, events, seats) at once.

Every change is one transaction: the games row gets the new engine snapshot
(``Game.to_json()``) and tabletop state, ``changes`` and ``events`` get their appended rows,
and seat rows are added or re-keyed. A killed server therefore restarts exactly at the
last change that answered its request.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field

from .db import transaction
from .errors import GameError
from .snapshot import LogEntry, SeatInfo, Snapshot, Tabletop

LOG_TAIL = 200  # entries kept in a snapshot; views show the newest of them


@dataclass(frozen=True)
class SeatOp:
    """A change to the seats table made with the rest of a change."""

    kind: str  # add | remove | token
    seat_id: int | None = None
    slot: int | None = None
    name: str | None = None
    token_hash: str | None = None


@dataclass(frozen=True)
class Change:
    actor: str  # host | seat:<id> | feed | guest
    command: dict
    engine_text: str | None
    tabletop: Tabletop
    entries: tuple[LogEntry, ...] = ()
    seat_ops: tuple[SeatOp, ...] = ()
    finished: bool = False
    extra: dict = field(default_factory=dict)  # results for the caller (a new seat's id...), not stored


class Store:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    # -------------------------------------------------------------- games

    def create_game(self, game_id: str, edition: str, options: list[str]) -> None:
        with transaction(self.conn):
            self.conn.execute(
                "INSERT INTO games (id, created, edition, options, version, engine, tabletop) "
                "VALUES (?, ?, ?, ?, 0, NULL, ?)",
                (game_id, time.time(), edition, json.dumps(options), json.dumps(Tabletop().to_json())))

    def latest_game_id(self) -> str | None:
        row = self.conn.execute("SELECT id FROM games ORDER BY created DESC, rowid DESC LIMIT 1").fetchone()
        return row["id"] if row else None

    def load(self, game_id: str) -> Snapshot | None:
        row = self.conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        seats = tuple(SeatInfo(r["id"], r["slot"], r["name"], r["token_hash"])
                      for r in self.conn.execute("SELECT id, slot, name, token_hash FROM seats "
                                                 "WHERE game_id = ? ORDER BY slot", (game_id,)))
        events = self.conn.execute(
            "SELECT id, private_to, kind, params FROM events WHERE game_id = ? ORDER BY id DESC LIMIT ?",
            (game_id, LOG_TAIL)).fetchall()
        log = tuple(LogEntry(r["kind"], json.loads(r["params"]), r["private_to"], r["id"]) for r in reversed(events))
        return Snapshot(game_id=row["id"], edition=row["edition"], options=tuple(json.loads(row["options"])),
                        version=row["version"], engine_text=row["engine"],
                        tabletop=Tabletop.from_json(json.loads(row["tabletop"])), seats=seats, log=log)

    def commit(self, before: Snapshot, change: Change) -> tuple[Snapshot, dict]:
        """Write ``change`` on top of ``before``; refuses if someone else changed the game meanwhile."""
        version = before.version + 1
        now = time.time()
        extra = dict(change.extra)
        with transaction(self.conn):
            updated = self.conn.execute(
                "UPDATE games SET version = ?, engine = ?, tabletop = ?, finished = ? WHERE id = ? AND version = ?",
                (version, change.engine_text, json.dumps(change.tabletop.to_json()), int(change.finished),
                 before.game_id, before.version)).rowcount
            if updated != 1:
                raise GameError(409, "error.stale-state")
            self.conn.execute("INSERT INTO changes (game_id, version, at, actor, command) VALUES (?, ?, ?, ?, ?)",
                              (before.game_id, version, now, change.actor, json.dumps(change.command)))
            for op in change.seat_ops:
                extra.update(self._seat_op(before.game_id, op, now))
            self.conn.executemany(
                "INSERT INTO events (game_id, version, at, private_to, kind, params) VALUES (?, ?, ?, ?, ?, ?)",
                [(before.game_id, version, now, e.private_to, e.kind, json.dumps(e.params)) for e in change.entries])
        return self.load(before.game_id), extra

    def _seat_op(self, game_id: str, op: SeatOp, now: float) -> dict:
        try:
            if op.kind == "add":
                cursor = self.conn.execute(
                    "INSERT INTO seats (game_id, slot, name, token_hash, joined) VALUES (?, ?, ?, ?, ?)",
                    (game_id, op.slot, op.name, op.token_hash, now))
                return {"seat_id": cursor.lastrowid}
            if op.kind == "remove":
                self.conn.execute("DELETE FROM seats WHERE id = ? AND game_id = ?", (op.seat_id, game_id))
                return {}
            if op.kind == "token":
                self.conn.execute("UPDATE seats SET token_hash = ? WHERE id = ? AND game_id = ?",
                                  (op.token_hash, op.seat_id, game_id))
                return {}
        except sqlite3.IntegrityError:
            # Two phones asking for the same seat at the same moment: the second one loses.
            raise GameError(409, "error.slot-taken") from None
        raise ValueError(f"unknown seat operation {op.kind!r}")

    # -------------------------------------------------------------- seats

    def seat_for_token(self, token_hash: str) -> tuple[int, str] | None:
        row = self.conn.execute("SELECT id, game_id FROM seats WHERE token_hash = ?", (token_hash,)).fetchone()
        return (row["id"], row["game_id"]) if row else None
