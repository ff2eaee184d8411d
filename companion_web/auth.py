"""Who is asking: seat tokens, the host's session, and the one-time host link.

* A seat token (``secrets.token_urlsafe(32)``, 256 bits) is issued when a phone takes a
  seat. The phone keeps it twice: in an HttpOnly, SameSite=Strict cookie (sent by
  EventSource, which cannot set headers) and in localStorage (sent as ``X-Seat-Token``, and
  used to restore the cookie if the browser dropped it). It never appears in a URL or in
  the QR code. The database keeps only its sha256.
* The host proves itself with a cookie set by a one-time link that ``run_server`` prints
  in the terminal: ``/host/<code>`` is redeemed once, sets an HttpOnly session cookie and
  redirects to a clean URL, so the code is dead once the browser history has it. A
  lost cookie is replaced by restarting the server (a new link) or from an existing host
  screen ("link another screen"). The host runs the table; it never sees a secret.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import time

from flask import Request, Response, current_app

from .db import transaction
from .errors import GameError
from .store import Store

SEAT_HEADER = "X-Seat-Token"
HOST_COOKIE = "tv_host"
COOKIE_DAYS = 7
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,100}")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def seat_cookie(game_id: str) -> str:
    return f"tv_seat_{game_id}"


def set_cookie(response: Response, name: str, value: str) -> None:
    response.set_cookie(name, value, max_age=COOKIE_DAYS * 86400, httponly=True, samesite="Strict",
                        secure=current_app.config["COOKIE_SECURE"], path="/")


# ------------------------------------------------------------------ seats


def presented_seat_token(request: Request, game_id: str) -> str | None:
    """The seat token the request carries: the header (from localStorage) first, then the cookie."""
    return request.headers.get(SEAT_HEADER) or request.cookies.get(seat_cookie(game_id))


def seat_of(conn: sqlite3.Connection, request: Request, game_id: str) -> int:
    """The seat id the request speaks for. 401: no or unknown token; 403: a token of another game."""
    token = presented_seat_token(request, game_id)
    if not token:
        raise GameError(401, "error.no-token")
    found = Store(conn).seat_for_token(token_hash(token)) if _TOKEN_SHAPE.fullmatch(token) else None
    if found is None:
        raise GameError(401, "error.bad-token")
    seat_id, seat_game = found
    if seat_game != game_id:
        raise GameError(403, "error.other-game")
    return seat_id


def seat_or_none(conn: sqlite3.Connection, request: Request, game_id: str) -> int | None:
    try:
        return seat_of(conn, request, game_id)
    except GameError:
        return None


# ------------------------------------------------------------------ the host


def issue_host_link(conn: sqlite3.Connection, ttl_s: float = 12 * 3600) -> str:
    """A one-time code for ``/host/<code>``; only its hash is stored."""
    code = new_token()
    now = time.time()
    with transaction(conn):
        conn.execute("INSERT INTO host_links (code_hash, created, expires) VALUES (?, ?, ?)",
                     (token_hash(code), now, now + ttl_s))
    return code


def redeem_host_link(conn: sqlite3.Connection, code: str) -> str | None:
    """Trade a one-time code for a host session token, or None if it is unknown, used or expired."""
    if not _TOKEN_SHAPE.fullmatch(code or ""):
        return None
    now = time.time()
    session = new_token()
    with transaction(conn):
        used = conn.execute("UPDATE host_links SET used = ? WHERE code_hash = ? AND used IS NULL AND expires > ?",
                            (now, token_hash(code), now)).rowcount
        if used == 1:
            conn.execute("INSERT INTO host_sessions (token_hash, created) VALUES (?, ?)", (token_hash(session), now))
    return session if used == 1 else None


def is_host(conn: sqlite3.Connection, request: Request) -> bool:
    token = request.cookies.get(HOST_COOKIE)
    if not token or not _TOKEN_SHAPE.fullmatch(token):
        return False
    return conn.execute("SELECT 1 FROM host_sessions WHERE token_hash = ?", (token_hash(token),)).fetchone() is not None


def require_host(conn: sqlite3.Connection, request: Request, game_id: str | None = None) -> None:
    """401 when the request has no host session; 403 when it is a player's phone."""
    if is_host(conn, request):
        return
    if game_id is not None and seat_or_none(conn, request, game_id) is not None:
        raise GameError(403, "error.host-only")
    raise GameError(401, "error.host-login")
