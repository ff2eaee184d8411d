"""Killing the real server mid-round (SIGKILL) loses nothing: restarted on the same database
it resumes the game, and phones get back their seats and secrets with the tokens they hold."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, db: Path, port: int):
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion_web.serve", "--host", "127.0.0.1", "--port", str(port), "--db", str(db),
             "--threads", "16"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.output = ""
        deadline = time.monotonic() + 30
        while "Ctrl-C stops the server" not in self.output:
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError(f"the server did not start:\n{self.output}")
            self.output += line
            assert time.monotonic() < deadline
        self.game_id = re.search(r"/g/(\w+)/join", self.output).group(1)
        self.host_link = re.search(r"(http://127\.0\.0\.1:\d+/host/\S+)", self.output).group(1)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process.stdout.close()


def call(url: str, data=None, headers=None, method=None):
    body = None if data is None else json.dumps(data).encode()
    request = urllib.request.Request(url, data=body, method=method or ("POST" if data is not None else "GET"),
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null"), response.headers
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null"), exc.headers


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def host_cookie(link: str) -> str | None:
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(link, timeout=10)
    except urllib.error.HTTPError as exc:
        if exc.code != 302:
            return None
        return re.search(r"tv_host=([^;]+)", exc.headers["Set-Cookie"]).group(1)
    return None


def first_event(url: str, cookie: str) -> tuple[dict, float]:
    started = time.monotonic()
    request = urllib.request.Request(url, headers={"Cookie": cookie, "Accept": "text/event-stream"})
    with urllib.request.urlopen(request, timeout=10) as stream:
        for raw in stream:
            line = raw.decode().rstrip("\n")
            if line.startswith("data: "):
                return json.loads(line[6:]), time.monotonic() - started
    raise AssertionError("the stream ended without a view")


def test_a_killed_server_restarts_where_it_was_and_phones_rejoin(tmp_path):
    db = tmp_path / "table.db"
    port = free_port()
    server = Server(db, port)
    try:
        base, game = server.base, server.game_id
        host = {"Cookie": f"tv_host={host_cookie(server.host_link)}"}
        tokens = {}
        for slot, name in enumerate(["Ana", "Bo", "Cy", "Di"], start=1):
            status, body, _ = call(f"{base}/api/g/{game}/join", {"name": name, "slot": slot})
            assert status == 201
            tokens[name] = body["token"]
        assert call(f"{base}/api/g/{game}/start", {}, host)[0] == 200

        def view_of(name):
            status, body, _ = call(f"{base}/api/g/{game}/state?view=seat", headers={"X-Seat-Token": tokens[name]})
            assert status == 200, body
            return body["view"]

        turn = view_of("Ana")["turn"]["name"]
        assert call(f"{base}/api/g/{game}/peek", {"cell": [8, 2]}, {"X-Seat-Token": tokens[turn]})[0] == 200
        assert call(f"{base}/api/g/{game}/feed", {"change": "placed", "face": "cross", "x": 1, "y": 0}, host)[1]["legal"]
        assert call(f"{base}/api/g/{game}/feed", {"change": "placed", "face": "straight-ns", "x": 2, "y": 0},
                    host)[1]["legal"] is False
        breaker = view_of("Ana")["turn"]["name"]
        assert call(f"{base}/api/g/{game}/action", {"card": "broken-cart", "target": 0},
                    {"X-Seat-Token": tokens[breaker]})[0] == 200
        before = {name: view_of(name) for name in tokens}
    finally:
        server.kill()

    restarted = None
    for _ in range(50):  # the old socket may linger a moment
        try:
            restarted = Server(db, port)
            break
        except AssertionError as exc:
            if "in use" not in str(exc):
                raise
            time.sleep(0.2)
    assert restarted is not None
    try:
        assert f"resuming the unfinished game {game}" in restarted.output
        assert call(f"{base}/api/g/{game}/turn", {"seat": 0}, host)[0] == 200  # the host's cookie survived
        assert host_cookie(server.host_link) is None  # the old one-time link stays used
        call(f"{base}/api/g/{game}/turn", {"seat": before["Ana"]["turn"]["seat"]}, host)
        for name, token in tokens.items():
            # a phone back from sleep: its cookie alone opens its stream, with its own secrets
            view, seconds = first_event(f"{base}/api/g/{game}/events?view=seat", f"tv_seat_{game}={token}")
            assert seconds < 3
            old = before[name]
            assert view["me"]["role"] == old["me"]["role"] and view["me"]["peeks"] == old["me"]["peeks"]
            assert view["board"]["cells"] == old["board"]["cells"] and view["contested"] == old["contested"]
            assert view["seats"][0]["broken"] == ["cart"] and view["turn"] == old["turn"]
            # the log as it was, then the host's two turn corrections made after the restart
            assert view["log"][:-2] == old["log"] and "The host says" in view["log"][-1]["text"]
        assert any(v["me"]["peeks"] for v in before.values())
        turn = before["Ana"]["turn"]["name"]
        assert call(f"{base}/api/g/{game}/pass", {}, {"X-Seat-Token": tokens[turn]})[0] == 200
        assert call(f"{base}/api/g/{game}/pass", {}, {"X-Seat-Token": "x" * 43})[0] == 401
    finally:
        restarted.kill()
