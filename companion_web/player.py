"""The phone pages: join a game by its QR code, then everything a seat may see and do."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, redirect, render_template, request

from . import auth
from .access import view
from .app import companion
from .db import get_db
from .i18n import LANG_COOKIE, LANGUAGES, client_strings, pick_language
from .views import SEAT, TABLE_VIEWER, Viewer

bp = Blueprint("player", __name__)


@bp.get("/g/<game_id>/join")
def join(game_id: str):
    """What the QR code opens. A phone that holds a seat sees it; any other phone sees the join form."""
    snap = companion().service.snapshot(game_id)
    seat_id = auth.seat_or_none(get_db(), request, game_id)
    viewer = Viewer(SEAT, seat_id) if seat_id is not None else TABLE_VIEWER
    lang = pick_language(request)
    return render_template("player.html", lang=lang, page="player", game_id=game_id, viewer_kind=viewer.kind,
                           view=view(snap, viewer), strings=client_strings(lang))


@bp.get("/lang/<code>")
def language(code: str):
    target = request.args.get("next", "/")
    # Only a path on this server: an open redirect would let a link dress up as the table.
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        target = "/"
    response = redirect(target)
    if code in LANGUAGES:
        response.set_cookie(LANG_COOKIE, code, max_age=365 * 86400, samesite="Lax", path="/")
    return response
