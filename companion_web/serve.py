"""``tunnelvision serve``: the companion on waitress, with the join QR code in the terminal.

Only the standard library is imported at module level, so adding the subcommand's
arguments costs the command line nothing; Flask and waitress load when the server starts.

    python -m companion_web.serve --port 8000 --db tunnelvision.db
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from typing import Callable, TextIO

GAMES = ("saboteur", "saboteur2")
DEFAULT_THREADS = 40
# Threads kept for ordinary requests however many screens stream: each SSE connection
# holds one thread, and a phone must still be able to join, peek or pick.
RESERVED_THREADS = 8


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 to 65535 (the socket layer would quietly wrap a larger one)."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 0 to 65535, not {text!r}")
    return port


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="0.0.0.0",
                        help="address to listen on (default 0.0.0.0: every interface, so phones on the Wi-Fi can join)")
    parser.add_argument("--port", type=port_number, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--game", choices=GAMES, default=None,
                        help="saboteur (default) or saboteur2, for a new game")
    parser.add_argument("--options", default=None, help="comma-separated rule options for a new game")
    parser.add_argument("--db", default="tunnelvision.db",
                        help="SQLite file that keeps the games (default ./tunnelvision.db); an unfinished game in it is resumed")
    parser.add_argument("--new-game", action="store_true", help="start a new game even if the database holds an unfinished one")
    parser.add_argument("--public-url", default=None,
                        help="base URL phones use, e.g. http://192.168.1.20:8000 (default: this machine's LAN address)")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                        help=f"server threads (default {DEFAULT_THREADS}; every phone and table screen holds one)")
    camera = parser.add_argument_group("camera", "what watches the table (without one, the host enters each card laid)")
    source = camera.add_mutually_exclusive_group()
    source.add_argument("--camera", type=int, metavar="N", help="a webcam, by its index (0 is the first)")
    source.add_argument("--video", metavar="FILE", help="a video of a game, played back as if a camera were filming")
    source.add_argument("--photos", metavar="DIR", help="a folder of photos of the table, one after another")
    source.add_argument("--source", metavar="SPEC",
                        help="anything else a camera can be: a file, a folder, an MJPEG URL (http://phone:8080/video)")
    camera.add_argument("--deck", metavar="FILE", help="a deck calibration from calibrate-deck (your own printing)")
    camera.add_argument("--calibration", metavar="FILE", help="a table calibration (fixed camera with the marker sheet)")


def camera_source(args: argparse.Namespace):
    """The source the arguments name (a spec for ``vision.capture.open_source``), or None."""
    for given in (args.camera, args.video, args.photos, args.source):
        if given is not None:
            return given
    return None


def run_from_args(args: argparse.Namespace) -> int:
    spec = camera_source(args)
    feed = None
    if spec is None and (args.deck or args.calibration):
        print("tunnelvision: --deck and --calibration are for a camera; add --camera, --video, --photos or --source",
              file=sys.stderr)
        return 2
    if spec is not None:
        from .vision_feed import FeedError, open_camera_feed

        try:
            feed = open_camera_feed(spec, edition=args.game or "saboteur", deck=args.deck,
                                    calibration=args.calibration)
        except FeedError as exc:
            print(f"tunnelvision: {exc}", file=sys.stderr)
            return 2
    try:
        return run_server(args.host, args.port, args.game, args.options, args.db, threads=args.threads,
                          public_url=args.public_url, new_game=args.new_game, feed=feed)
    finally:
        if feed is not None:
            feed.stop()  # also when the server never started: the camera is released


def lan_address() -> str:
    """This machine's address on the local network, as phones will reach it."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))  # UDP connect sends nothing; it only picks the interface
            return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def make_server(app, host: str, port: int, threads: int = DEFAULT_THREADS):
    """A waitress server for ``app`` (not yet running: call ``.run()``; ``.close()`` stops it)."""
    from waitress import create_server

    app.config["SSE_MAX_STREAMS"] = max(1, threads - RESERVED_THREADS)
    app.extensions["tunnelvision"].hub.max_streams = app.config["SSE_MAX_STREAMS"]
    # channel_request_lookahead lets waitress notice a phone that went away while its
    # event stream waits, so its thread is released within a second, not at the next write.
    return create_server(app, host=host, port=port, threads=threads, channel_request_lookahead=1,
                         ident="tunnelvision", clear_untrusted_proxy_headers=True)


class ServeError(Exception):
    """A reason the server cannot start, in one sentence."""


def prepare(db_path: str, game: str | None, options: str | None, new_game: bool,
            config: dict | None = None, feed=None):
    """The app with its game: the unfinished game in the database, or a new one. Returns (app, game id, note)."""
    from .app import create_app
    from .db import get_db
    from .errors import GameError
    from .i18n import translate

    directory = os.path.dirname(os.path.abspath(db_path))
    if not os.path.isdir(directory):
        raise ServeError(f"the folder for the database does not exist: {directory}")
    app = create_app({"DATABASE": db_path, "FEED": feed, **(config or {})})
    with app.app_context():
        row = get_db().execute("SELECT id, edition, finished FROM games ORDER BY created DESC, rowid DESC LIMIT 1").fetchone()
        service = app.extensions["tunnelvision"].service
        if row is not None and not row["finished"] and not new_game:
            note = f"resuming the unfinished game {row['id']}"
            if (game and game != row["edition"]) or options:
                note += " (the --game/--options given apply to new games only; pass --new-game for one)"
            return app, row["id"], note
        try:
            game_id = service.create_game(game or "saboteur", options or "")
        except GameError as exc:
            raise ServeError(translate("en", exc.key, **exc.params)) from None
        return app, game_id, f"new game {game_id}"


def run_server(host: str = "0.0.0.0", port: int = 8000, game: str | None = None, options: str | None = None,
               db_path: str = "tunnelvision.db", *, threads: int = DEFAULT_THREADS, public_url: str | None = None,
               new_game: bool = False, feed=None, out: TextIO | None = None,
               ready: Callable[[object, object, str], None] | None = None) -> int:
    """Serve the companion until Ctrl-C. Prints the join URL and QR code, the table URL and the
    one-time host link. Returns the exit status; a problem the user can fix is one line on stderr."""
    from .auth import issue_host_link
    from .db import DatabaseError, get_db
    from .qr import qr_text

    out = out or sys.stdout
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    if threads < RESERVED_THREADS + 2:
        print(f"tunnelvision: --threads must be at least {RESERVED_THREADS + 2}", file=sys.stderr)
        return 2
    try:
        app, game_id, note = prepare(db_path, game, options, new_game, feed=feed)
        server = make_server(app, host, port, threads)
    except (ServeError, DatabaseError) as exc:
        print(f"tunnelvision: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tunnelvision: cannot listen on {host}:{port} ({exc.strerror or exc}); choose another --port",
              file=sys.stderr)
        return 2
    port = server.effective_port
    everywhere = host in ("0.0.0.0", "::", "")
    base = (public_url or f"http://{lan_address() if everywhere else host}:{port}").rstrip("/")
    local = f"http://{'127.0.0.1' if everywhere else host}:{port}"
    app.config["PUBLIC_URL"] = base
    with app.app_context():
        code = issue_host_link(get_db())
    join = f"{base}/g/{game_id}/join"
    print(f"Tunnel Vision companion: {note}", file=out)
    print(f"Phones join at {join}  (same Wi-Fi; scan the code below or the one on the table screen)", file=out)
    print(qr_text(join, tty=out.isatty()), file=out)
    print(f"Table screen:  {base}/g/{game_id}/table", file=out)
    print(f"Host controls (works once; open it on the table computer): {local}/host/{code}", file=out)
    print(f"Database: {os.path.abspath(db_path)}; {threads} threads. Ctrl-C stops the server.", file=out, flush=True)
    companion = app.extensions["tunnelvision"]
    companion.feed.start()
    if ready is not None:
        ready(server, app, game_id)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        companion.feed.stop()
        server.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion_web.serve", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
