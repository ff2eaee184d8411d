"""``run_server`` and the arguments of ``tunnelvision serve``."""

from __future__ import annotations

import argparse
import io
import json
import re
import socket
import threading
import time
import urllib.request

import pytest

from companion_web.db import get_db
from companion_web.serve import add_arguments, prepare, run_server


def parse(*argv):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_arguments_and_their_defaults():
    args = parse()
    assert (args.host, args.port, args.game, args.options, args.db, args.new_game, args.threads) == \
        ("0.0.0.0", 8000, None, None, "tunnelvision.db", False, 40)
    args = parse("--game", "saboteur2", "--port", "0", "--new-game", "--public-url", "http://t:1")
    assert args.game == "saboteur2" and args.port == 0 and args.new_game and args.public_url == "http://t:1"


def test_a_port_out_of_range_is_refused_not_wrapped(capsys):
    """The socket layer takes 99999 as 34463 and -1 as an error deep inside waitress."""
    for port in ("99999", "-1", "http"):
        with pytest.raises(SystemExit) as exit_:
            parse("--port", port)
        assert exit_.value.code == 2
        assert "a port is a number from 0 to 65535" in capsys.readouterr().err
    assert parse("--port", "65535").port == 65535


def test_problems_are_one_sentence_and_exit_status_2(tmp_path, capsys):
    assert run_server("127.0.0.1", 0, "saboteur", "no-such-rule", str(tmp_path / "a.db")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tunnelvision: ") and "no-such-rule" in err
    assert run_server("127.0.0.1", 0, None, None, str(tmp_path / "missing" / "a.db")) == 2
    assert "does not exist" in capsys.readouterr().err
    assert run_server("127.0.0.1", 0, threads=4, db_path=str(tmp_path / "b.db")) == 2
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert run_server("127.0.0.1", port, db_path=str(tmp_path / "c.db")) == 2
        assert "choose another --port" in capsys.readouterr().err
    (tmp_path / "d.db").write_bytes(b"not sqlite " * 100)
    assert run_server("127.0.0.1", 0, db_path=str(tmp_path / "d.db")) == 2
    assert "not a database" in capsys.readouterr().err


def test_an_unfinished_game_is_resumed_unless_a_new_one_is_asked_for(tmp_path):
    db = str(tmp_path / "g.db")
    _, first, note = prepare(db, "saboteur2", None, False)
    assert note == f"new game {first}"
    _, again, note = prepare(db, "saboteur", None, False)
    assert again == first and "resuming" in note and "--new-game" in note
    app, fresh, _ = prepare(db, "saboteur", "selfish-dwarf", True)
    assert fresh != first
    with app.app_context():
        row = get_db().execute("SELECT edition, options FROM games WHERE id = ?", (fresh,)).fetchone()
    assert row["edition"] == "saboteur" and json.loads(row["options"]) == ["selfish-dwarf"]


def test_the_server_prints_where_to_join_and_serves(tmp_path):
    out = io.StringIO()
    started = threading.Event()
    holder = {}

    def ready(server, app, game_id):
        holder.update(server=server, game=game_id)
        started.set()

    thread = threading.Thread(target=run_server, kwargs=dict(
        host="127.0.0.1", port=0, game="saboteur", db_path=str(tmp_path / "s.db"), threads=12,
        public_url="http://192.168.7.7:8000", out=out, ready=ready), daemon=True)
    thread.start()
    assert started.wait(20)
    try:
        text = out.getvalue()
        game = holder["game"]
        assert f"Phones join at http://192.168.7.7:8000/g/{game}/join" in text
        assert "█" in text  # the QR code
        link = re.search(r"(http://127\.0\.0\.1:\d+/host/\S+)", text).group(1)
        port = holder["server"].effective_port
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/g/{game}/table", timeout=5) as page:
            assert page.status == 200 and b"Tunnel Vision" in page.read()
        assert "?" not in link and link.count("/host/") == 1
    finally:
        holder["server"].close()
        thread.join(10)
    assert not thread.is_alive()


def test_a_phone_that_vanishes_gives_its_thread_back(tmp_path):
    """Each event stream holds a server thread; a client that goes away must not keep it."""
    from companion_web.serve import make_server

    app, game, _ = prepare(str(tmp_path / "v.db"), "saboteur", None, False,
                           config={"SSE_POLL": 0.2, "SSE_HEARTBEAT": 5.0})
    http = make_server(app, "127.0.0.1", 0, threads=12)
    thread = threading.Thread(target=http.run, daemon=True)
    thread.start()
    port = http.effective_port
    hub = app.extensions["tunnelvision"].hub
    try:
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/g/{game}/join",
                                         data=b'{"name": "Ana", "slot": 1}',
                                         headers={"Content-Type": "application/json"})
        token = json.loads(urllib.request.urlopen(request, timeout=5).read())["token"]
        for _ in range(3):
            phone = socket.create_connection(("127.0.0.1", port), timeout=5)
            phone.sendall(f"GET /api/g/{game}/events?view=seat HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Cookie: tv_seat_{game}={token}\r\nAccept: text/event-stream\r\n\r\n".encode())
            received = b""
            while b"event: view" not in received:
                received += phone.recv(65536)
            assert hub.open_streams() == 1
            phone.close()  # the phone went to sleep without a word
            deadline = time.monotonic() + 3
            while hub.open_streams() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert hub.open_streams() == 0
    finally:
        http.close()
        thread.join(10)
