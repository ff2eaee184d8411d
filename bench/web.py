"""Web companion load benchmark: phones and a table screen on SSE while a game is driven.

    python bench/web.py [--seconds 120] [--quick] [--phones 12] [--rate 5] [--json]

Loopback only. The real server (``python -m companion_web.serve``, waitress) runs in a
subprocess on 127.0.0.1 with a temporary database. Twelve phones join a Saboteur 2 game
(the edition that seats twelve), each holds an event stream, and so does one table
screen; the host then lays cards and records actions through the API at a steady rate
for ``--seconds`` (default 120; ``--quick`` is 5 s for a smoke run). Reported: errors
(must be zero: failed calls, dropped streams, a stream that showed another seat, an
update that never arrived) and the update latency, the time from the start of the API
call that changed the game to each stream receiving a view at least that new.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

# Run as a script, this folder comes first on sys.path; look from the repository root instead.
if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from engine.board import Board  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
NAMES = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kai", "Lu"]


class Server:
    """The companion in a subprocess, on a free loopback port."""

    def __init__(self, db: str, threads: int):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion_web.serve", "--host", "127.0.0.1", "--port", "0", "--db", db,
             "--game", "saboteur2", "--threads", str(threads)],
            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        output = ""
        while "Ctrl-C stops the server" not in output:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit(f"bench/web.py: the server did not start:\n{output}")
            output += line
        join = re.search(r"Phones join at (http://127\.0\.0\.1:\d+)/g/(\w+)/join", output)
        self.base, self.game = join.group(1), join.group(2)
        self.host_link = re.search(r"(http://127\.0\.0\.1:\d+/host/\S+)", output).group(1)
        # Keep draining the server's output so a chatty log never blocks it.
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def host_cookie(link: str) -> str:
    try:
        urllib.request.build_opener(NoRedirect).open(link, timeout=10)
    except urllib.error.HTTPError as exc:
        return re.search(r"tv_host=([^;]+)", exc.headers["Set-Cookie"]).group(1)
    raise SystemExit("bench/web.py: the host link did not log in")


class Stream(threading.Thread):
    """One screen's event stream: when each version first arrived, and whether it was the right view."""

    def __init__(self, url: str, cookie: str | None, expect_name: str | None):
        super().__init__(daemon=True)
        self.url, self.cookie, self.expect_name = url, cookie, expect_name
        self.arrivals: list[tuple[int, float]] = []  # (version, perf_counter) of each view event
        self.errors: list[str] = []
        self.ready = threading.Event()
        self.stopping = False

    def run(self) -> None:
        headers = {"Accept": "text/event-stream", **({"Cookie": self.cookie} if self.cookie else {})}
        try:
            with urllib.request.urlopen(urllib.request.Request(self.url, headers=headers), timeout=60) as stream:
                event_id = None
                for raw in stream:
                    line = raw.decode()
                    if line.startswith("id: "):
                        event_id = line[4:].strip()
                    elif line.startswith("data: ") and event_id is not None:
                        arrived = time.perf_counter()
                        view = json.loads(line[6:])
                        if view["viewer"]["name"] != self.expect_name:
                            self.errors.append(f"a stream for {self.expect_name} carried {view['viewer']['name']}'s view")
                        self.arrivals.append((int(event_id.split(".")[0]), arrived))
                        event_id = None
                        self.ready.set()
                    if self.stopping:
                        return
        except Exception as exc:  # noqa: BLE001 - every way a stream can fail is an error to count
            if not self.stopping:
                self.errors.append(f"stream for {self.expect_name or 'the table'} failed: {exc}")
        if not self.stopping:
            self.errors.append(f"stream for {self.expect_name or 'the table'} ended early")

    def first_at_least(self, version: int) -> float | None:
        return next((t for v, t in self.arrivals if v >= version), None)


class Driver:
    """Plays the game through the API the way a table would: cards laid, tools broken and mended, passes."""

    def __init__(self, server: Server, host: str, tokens: dict[str, str], seed: int):
        self.server, self.host, self.tokens = server, host, tokens
        self.rng = random.Random(seed)
        self.changes: list[tuple[int, float]] = []  # (version, perf_counter at the start of the call)
        self.call_times: list[float] = []
        self.errors: list[str] = []
        self.kinds: dict[str, int] = {}
        self.view: dict | None = None

    def call(self, path: str, data: dict, *, token: str | None = None, expect_change: bool = True) -> dict | None:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["X-Seat-Token"] = token
        else:
            headers["Cookie"] = f"tv_host={self.host}"
        request = urllib.request.Request(f"{self.server.base}/api/g/{self.server.game}/{path}",
                                         data=json.dumps(data).encode(), headers=headers, method="POST")
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                body = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            self.errors.append(f"{path} answered {exc.code}: {exc.read()[:200]!r}")
            return None
        except Exception as exc:  # noqa: BLE001
            self.errors.append(f"{path} failed: {exc}")
            return None
        self.call_times.append(time.perf_counter() - started)
        if "view" in body:
            self.view = body["view"]
            if expect_change:
                self.changes.append((int(self.view["event_id"].split(".")[0]), started))
        return body

    def step(self) -> None:
        view = self.view
        turn = view["turn"]["seat"]
        me = view["seats"][turn]
        token = self.tokens[me["name"]]
        roll = self.rng.random()
        if me["broken_ids"]:
            tool = me["broken_ids"][0]
            self.act("repair", {"card": f"repair-{tool}", "target": turn}, token)
        elif roll < 0.12:
            targets = [s["seat"] for s in view["seats"] if "pickaxe" not in s["broken_ids"]]
            self.act("break", {"card": "broken-pickaxe", "target": self.rng.choice(targets)}, token)
        elif roll < 0.2:
            self.kinds["pass"] = self.kinds.get("pass", 0) + 1
            self.call("pass", {}, token=token)
        else:
            self.lay()

    def act(self, kind: str, data: dict, token: str) -> None:
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        self.call("action", data, token=token)

    def lay(self) -> None:
        """A legal card that turns no goal over (so the round goes on), or a rockfall when the maze is full."""
        board = Board.from_json({"board": self.view["board"]["cells"],
                                 "hidden_goals": [{"x": g["x"], "y": g["y"], "face": None}
                                                  for g in self.view["board"]["goals"] if g["state"] == "hidden"]})
        paths = self.view["board"]["path_cells"]
        if len(paths) < 30:
            faces = list(self.view["game"]["faces"])
            self.rng.shuffle(faces)
            for face in faces[:6]:
                options = [p for p in board.legal_placements(face) if not board.check(p).reveals]
                if options:
                    p = self.rng.choice(options)
                    self.kinds["place"] = self.kinds.get("place", 0) + 1
                    self.call("feed", {"change": "placed", **p.to_dict()})
                    return
        if not paths:
            self.kinds["pass"] = self.kinds.get("pass", 0) + 1
            self.call("pass", {"for_seat": self.view["turn"]["seat"]})
            return
        x, y = self.rng.choice(paths)
        self.kinds["rockfall"] = self.kinds.get("rockfall", 0) + 1
        self.call("feed", {"change": "removed", "x": x, "y": y})


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def run(seconds: float, phones: int, rate: float, threads: int, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        server = Server(os.path.join(folder, "bench.db"), threads)
        streams: list[Stream] = []
        try:
            host = host_cookie(server.host_link)
            tokens = {}
            for slot, name in enumerate(NAMES[:phones], start=1):
                request = urllib.request.Request(f"{server.base}/api/g/{server.game}/join",
                                                 data=json.dumps({"name": name, "slot": slot}).encode(),
                                                 headers={"Content-Type": "application/json"}, method="POST")
                with urllib.request.urlopen(request, timeout=10) as response:
                    tokens[name] = json.loads(response.read())["token"]
            events = f"{server.base}/api/g/{server.game}/events"
            streams = [Stream(f"{events}?view=seat", f"tv_seat_{server.game}={token}", name)
                       for name, token in tokens.items()]
            streams.append(Stream(f"{events}?view=table", None, None))
            for stream in streams:
                stream.start()
            for stream in streams:
                if not stream.ready.wait(10):
                    raise SystemExit("bench/web.py: a stream never delivered its first view")
            driver = Driver(server, host, tokens, seed)
            driver.call("start", {})
            began = time.perf_counter()
            interval = 1 / rate
            next_at = began
            while time.perf_counter() - began < seconds:
                driver.step()
                next_at += interval
                time.sleep(max(0.0, next_at - time.perf_counter()))
            driver.call("exhausted", {})  # the end of the round is scored like any other change
            elapsed = time.perf_counter() - began
            time.sleep(2)  # let the last updates arrive
        finally:
            for stream in streams:
                stream.stopping = True
            server.stop()
    latencies, missed = [], 0
    for version, started in driver.changes:
        for stream in streams:
            arrived = stream.first_at_least(version)
            if arrived is None:
                missed += 1
            else:
                latencies.append(arrived - started)
    errors = driver.errors + [e for s in streams for e in s.errors] + (
        [f"{missed} updates never reached a stream"] if missed else [])
    return {
        "seconds": round(elapsed, 1), "phones": phones, "streams": len(streams), "threads": threads,
        "changes": len(driver.changes), "changes_per_second": round(len(driver.changes) / elapsed, 2),
        "kinds": driver.kinds, "events_received": sum(len(s.arrivals) for s in streams),
        "update_latency_ms": {"p50": round(percentile(latencies, 50) * 1000, 1),
                              "p99": round(percentile(latencies, 99) * 1000, 1),
                              "max": round(max(latencies) * 1000, 1)},
        "api_call_ms": {"p50": round(percentile(driver.call_times, 50) * 1000, 1),
                        "p99": round(percentile(driver.call_times, 99) * 1000, 1)},
        "errors": len(errors), "error_samples": errors[:5],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120, help="how long to drive the game (default 120)")
    parser.add_argument("--quick", action="store_true", help="a 5-second smoke run")
    parser.add_argument("--phones", type=int, default=12, choices=range(2, 13), metavar="2..12")
    parser.add_argument("--rate", type=float, default=5.0, help="changes per second (default 5)")
    parser.add_argument("--threads", type=int, default=40, help="server threads (default 40, as tunnelvision serve)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    seconds = 5 if args.quick else args.seconds
    result = run(seconds, args.phones, args.rate, args.threads, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        lat, api = result["update_latency_ms"], result["api_call_ms"]
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(result["kinds"].items()))
        print(f"Tunnel Vision web benchmark: loopback, {result['phones']} phones + 1 table screen on SSE, "
              f"Saboteur 2, {result['seconds']} s, {result['threads']} server threads")
        print(f"  changes driven through the API   {result['changes']} ({result['changes_per_second']}/s; {kinds})")
        print(f"  SSE views received               {result['events_received']} on {result['streams']} streams")
        print(f"  update latency (call to screen)  p50 {lat['p50']} ms, p99 {lat['p99']} ms, max {lat['max']} ms")
        print(f"  API call time                    p50 {api['p50']} ms, p99 {api['p99']} ms")
        print(f"  errors                           {result['errors']}")
        for sample in result["error_samples"]:
            print(f"    {sample}")
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
