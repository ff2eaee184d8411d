"""From a request to a view: who the viewer is, and the view context (language, presence, URLs)."""

from __future__ import annotations

from flask import current_app, request

from . import auth
from .app import companion
from .db import get_db
from .errors import GameError
from .i18n import pick_language
from .snapshot import Snapshot
from .views import HOST, SEAT, TABLE, TABLE_VIEWER, HOST_VIEWER, Context, Viewer, view_for

VIEW_KINDS = (SEAT, TABLE, HOST)


def base_url() -> str:
    return (current_app.config["PUBLIC_URL"] or request.host_url).rstrip("/")


def join_url(game_id: str) -> str:
    """What the QR code encodes: the game's join page, never a token."""
    return f"{base_url()}/g/{game_id}/join"


def viewer_for(game_id: str, kind: str | None) -> Viewer:
    """The viewer a request may be, for the kind of view it asks for (401/403 when it may not)."""
    if kind not in VIEW_KINDS:
        raise GameError(400, "error.view-kind")
    if kind == TABLE:
        return TABLE_VIEWER
    conn = get_db()
    if kind == HOST:
        auth.require_host(conn, request, game_id)
        return HOST_VIEWER
    return Viewer(SEAT, auth.seat_of(conn, request, game_id))


def context_for(snap: Snapshot, lang: str | None = None) -> Context:
    hub = companion().hub
    return Context(lang=lang or pick_language(request), connected=hub.connected_seats(snap.game_id),
                   join_url=join_url(snap.game_id), event_id=f"{snap.version}.{hub.presence(snap.game_id)}")


def view(snap: Snapshot, viewer: Viewer) -> dict:
    return view_for(snap, viewer, context_for(snap))
