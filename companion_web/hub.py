"""Server-sent events: who is connected, and one stream per screen.

Each SSE connection holds one server thread for as long as it is open, so streams are
bounded three ways: at most ``max_streams`` at once (the rest of the pool stays free for
ordinary requests: a refused stream gets 503 and retries), a few per viewer (a phone
that reconnects replaces its stale stream instead of leaking it), and a lifetime after
which the browser reconnects by itself. Between changes a stream wakes every ``poll``
seconds to notice a client that went away, and writes a ping every ``heartbeat`` seconds,
which both keeps the phone's watchdog quiet and surfaces dead sockets.

A stream never holds a database connection: it renders views from the service's cached
snapshot.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterator

PER_VIEWER = {"seat": 2, "host": 3, "table": 6}


class TooManyStreams(Exception):
    pass


@dataclass(eq=False)
class Stream:
    game_id: str
    kind: str
    seat_id: int | None
    opened: float = field(default_factory=time.monotonic)
    replaced: bool = False


class Hub:
    def __init__(self, max_streams: int = 32):
        self.max_streams = max_streams
        self._cond = threading.Condition()
        self._streams: list[Stream] = []
        self._changes: Counter[str] = Counter()  # per game: bumped by every published change
        self._presence: Counter[str] = Counter()  # per game: bumped when a screen comes or goes

    # -------------------------------------------------------------- changes

    def publish(self, game_id: str) -> None:
        with self._cond:
            self._changes[game_id] += 1
            self._cond.notify_all()

    def stamp(self, game_id: str) -> tuple[int, int]:
        with self._cond:
            return self._changes[game_id], self._presence[game_id]

    def presence(self, game_id: str) -> int:
        with self._cond:
            return self._presence[game_id]

    def wait(self, stream: Stream, seen: tuple[int, int], timeout: float) -> None:
        with self._cond:
            self._cond.wait_for(lambda: stream.replaced or (self._changes[stream.game_id],
                                                           self._presence[stream.game_id]) != seen, timeout)

    # -------------------------------------------------------------- presence

    def open(self, game_id: str, kind: str, seat_id: int | None) -> Stream:
        stream = Stream(game_id, kind, seat_id)
        with self._cond:
            if len(self._streams) >= self.max_streams:
                raise TooManyStreams()
            same = [s for s in self._streams if (s.game_id, s.kind, s.seat_id) == (game_id, kind, seat_id)]
            for old in same[: max(0, len(same) + 1 - PER_VIEWER.get(kind, 2))]:
                old.replaced = True
                self._streams.remove(old)
            self._streams.append(stream)
            self._presence[game_id] += 1
            self._cond.notify_all()
        return stream

    def close(self, stream: Stream) -> None:
        with self._cond:
            if stream in self._streams:
                self._streams.remove(stream)
            self._presence[stream.game_id] += 1
            self._cond.notify_all()

    def connected_seats(self, game_id: str) -> frozenset[int]:
        with self._cond:
            return frozenset(s.seat_id for s in self._streams if s.game_id == game_id and s.kind == "seat")

    def open_streams(self) -> int:
        with self._cond:
            return len(self._streams)


class EventStream:
    """The body of one SSE response: the current view at once, then one per change.

    Every connection starts with a full view rather than resuming from Last-Event-ID: a
    view is small, and a phone back from sleep must show its state at once whatever it
    missed.

    An iterable with ``close`` rather than a bare generator, because the WSGI server may
    close a response it never started iterating, and the stream must still be released.
    """

    def __init__(self, hub: Hub, stream: Stream, *, event_id: Callable[[], str], render: Callable[[str], str],
                 allowed: Callable[[], bool], disconnected: Callable[[], bool],
                 heartbeat: float, lifetime: float, poll: float):
        self.hub = hub
        self.stream = stream
        self.event_id = event_id
        self.render = render
        self.allowed = allowed
        self.disconnected = disconnected
        self.heartbeat = heartbeat
        self.lifetime = lifetime
        self.poll = poll
        self._closed = False

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield b"retry: 1000\n\n"
            sent = None
            now = time.monotonic()
            deadline, last_write = now + self.lifetime, now
            while True:
                if self.stream.replaced:
                    yield b"event: replaced\ndata: {}\n\n"
                    return
                if self.disconnected() or now >= deadline:
                    return
                seen = self.hub.stamp(self.stream.game_id)
                if not self.allowed():
                    yield b"event: revoked\ndata: {}\n\n"
                    return
                current = self.event_id()
                if current != sent:
                    yield f"id: {current}\nevent: view\ndata: {self.render(current)}\n\n".encode()
                    sent, last_write = current, time.monotonic()
                elif now - last_write >= self.heartbeat:
                    yield b"event: ping\ndata: {}\n\n"
                    last_write = time.monotonic()
                self.hub.wait(self.stream, seen, self.poll)
                now = time.monotonic()
        finally:
            self.close()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.hub.close(self.stream)
