"""No answer to one seat carries another seat's role, peeks or gold.

A whole game is driven through the HTTP interface (phones join, the host starts, maps
are played, cards are laid, the gold is drafted, Saboteur 2's thieves steal), and every
answer each phone and the public table screen received is kept: JSON answers, HTML pages
and SSE events. Each is then searched for what its receiver must not know:

* role words (every role's id and its English and Polish names) anywhere outside the
  seat's own ``me`` block and its own private log lines, while a round is played (its
  dwarf cards are turned over when it ends) and before the final reveal;
* the face of any goal that was not turned over, outside the seat's own peeks;
* other seats' gold: distinctive canary amounts (7111, 7222, ...) are planted in every
  seat's gold between rounds, so any number that reveals someone's gold is findable;
* private log lines that are not the seat's own.

``test_the_search_finds_planted_leaks`` plants leaks in the view function and checks that
this search reports them, so the search itself is known to work.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from companion_web.logbook import describe

from companion_web.db import get_db
from companion_web.snapshot import LogEntry

from .conftest import Phone, Table, embedded_json

ROLE_WORDS = re.compile(
    r"(?i)(?<![\w-])(miners?|saboteurs?|selfish|gold-diggers?|diggers?|boss|profiteers?|geologists?"
    r"|górni\w*|sabotaży\w*|samolubn\w*|kopacz\w*|szef\w*|spekulan\w*|geolog\w*)(?![\w])")
GOAL_FACE = re.compile(r"goal-(?:gold|stone-[a-z]+)")
EDITION_TITLES = ("Saboteur 2", "Sabotażysta 2", "Saboteur", "Sabotażysta")
CANARY = 7000  # seat s gets CANARY + 111 * s (7000, 7111, 7222, ...)


def canary(seat: int) -> int:
    return CANARY + 111 * seat


def strings_in(value) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings_in(v)]]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return [str(value)] if value is not None else []


class Truth:
    """What the test knows that a receiver must not (read from the server's own state)."""

    def __init__(self, table: Table):
        self.table = table
        self.players = 0
        self.totals: dict[int, int] = {}
        self.planted = False

    def seat_private_lines(self, seat: int | None, lang: str) -> Counter:
        snap = self.table.snapshot()
        with self.table.app.app_context():
            rows = get_db().execute("SELECT kind, params, private_to FROM events WHERE game_id = ?",
                                    (self.table.game_id,)).fetchall()
        return Counter(describe(LogEntry(r["kind"], json.loads(r["params"]), r["private_to"]), snap.names, lang)["text"]
                       for r in rows if seat is not None and r["private_to"] == seat)

    def forbidden_numbers(self, seat: int | None) -> list[int]:
        if not self.planted:
            return []
        game = self.table.game()
        numbers = []
        for other in range(game.players):
            if other != seat:
                numbers += [canary(other), sum(game.gold[other])]
        return numbers


def problems_in_view(view: dict, seat: int | None, truth: Truth, own_private: Counter) -> list[str]:
    if "final" in view:
        return []  # after the last round everything is revealed to everyone
    found = []
    me = view.get("me") or {}
    public = {k: v for k, v in view.items() if k not in ("me", "log")}
    public["game"] = {k: v for k, v in view["game"].items() if k not in ("title", "edition", "options")}
    if public.get("result"):  # the round has ended: its dwarf cards are turned over for all to see
        public["result"] = {k: v for k, v in public["result"].items() if k != "roles"}
    private_lines = [line["text"] for line in view["log"] if line["tone"] == "private"]
    public["log"] = [line for line in view["log"] if line["tone"] != "private"]
    mine_extra = {k: v for k, v in me.items() if k not in ("role", "role_name", "role_hint")}
    for text in strings_in(public) + strings_in(mine_extra):
        if ROLE_WORDS.search(text):
            found.append(f"role word in {text[:120]!r}")
    revealed = {c["face"] for c in view["board"]["cells"]}
    for text in strings_in(public) + strings_in(mine_extra):
        for face in GOAL_FACE.findall(text):
            if face not in revealed:
                found.append(f"face of a face-down goal: {face}")
    # Only the seat's own private lines, and never more copies of one than it was given.
    extra = Counter(private_lines) - own_private
    if extra:
        found.append(f"private lines that are not this seat's: {sorted(extra)}")
    return found + problems_in_text(json.dumps(view, ensure_ascii=False), seat, truth)


def problems_in_text(text: str, seat: int | None, truth: Truth) -> list[str]:
    return [f"another seat's gold ({n})" for n in truth.forbidden_numbers(seat) if re.search(rf"(?<![\d.]){n}(?![\d])", text)]


def problems_in_html(html: str, seat: int | None, truth: Truth, own_private: Counter) -> list[str]:
    found = problems_in_view(embedded_json(html, "initial-view"), seat, truth, own_private)
    for text in embedded_json(html, "strings").values():
        if ROLE_WORDS.search(text):
            found.append(f"role word in the page's labels: {text!r}")
    bare = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    for title in EDITION_TITLES:
        bare = bare.replace(title, "")
    if ROLE_WORDS.search(bare):
        found.append(f"role word in the page: {ROLE_WORDS.search(bare).group(0)!r}")
    return found + problems_in_text(bare, seat, truth)


def audit(table: Table, truth: Truth, receivers) -> list[str]:
    """Every problem in everything each receiver got: [(seat or None, [Recorded, ...], lang)]."""
    problems = []
    for seat, received, lang in receivers:
        own = truth.seat_private_lines(seat, lang)
        for answer in received:
            if answer.kind == "html":
                found = problems_in_html(answer.text, seat, truth, own)
            else:
                body = json.loads(answer.text)
                view = body.get("view") if answer.kind == "json" else body
                found = problems_in_view(view, seat, truth, own) if view else problems_in_text(answer.text, seat, truth)
            problems += [f"{'seat %s' % seat if seat is not None else 'table'} ({answer.kind}): {p}" for p in found]
    return problems


# ------------------------------------------------------------------ driving a game


class Observed:
    """A table whose phones and public screen look at everything after every step."""

    def __init__(self, app, edition: str, names: list[str], polish: set[str] = frozenset()):
        self.table = Table(app, edition)
        self.phones = self.table.join(*names)
        self.polish = polish
        for phone in self.phones:
            if phone.name in polish:
                phone.client.set_cookie("tv_lang", "pl")
        self.screen = Phone(self.table, "screen", app.test_client())  # the public table screen: no token
        self.truth = Truth(self.table)

    def look(self) -> None:
        for phone in self.phones:
            phone.state()
            phone.page()
            phone.sse(1)
        self.screen.state(view="table")
        self.screen.page(f"/g/{self.table.game_id}/table")
        self.screen.sse(1, view="table")

    def plant_canaries(self) -> None:
        """Give every seat a distinctive amount of gold (between rounds, so no replay drops it)."""
        table = self.table
        service = table.service
        with table.app.app_context():
            with service._changing(table.game_id) as snap:
                assert snap.phase == "between"
                game = snap.fresh_game()
                for seat in range(game.players):
                    game.gold[seat].append(canary(seat))
                service._commit_game(snap, "test", {"op": "test-canaries"}, game, snap.tabletop, [])
        self.truth.planted = True

    def receivers(self):
        index = {s.name: i for i, s in enumerate(self.table.snapshot().seats)}
        out = [(index[p.name], p.received, "pl" if p.name in self.polish else "en") for p in self.phones]
        return out + [(None, self.screen.received, "en")]

    def peek_and_play(self, actions: list[dict]) -> None:
        """The player whose turn it is peeks at a hidden goal, then each action in turn."""
        table = self.table
        hidden = sorted(table.game().round.board.hidden_goals)
        table.phone_of(table.turn()).post("peek", {"cell": list(hidden[0])})
        self.look()
        for action in actions:
            table.phone_of(table.turn()).post("action", action)
        self.look()


def play_base_game(app, polish=frozenset({"Cy"})) -> Observed:
    game = Observed(app, "saboteur", ["Ana", "Bo", "Cy", "Di", "Ed"], polish)
    t = game.table
    game.look()
    t.start()
    game.look()
    game.peek_and_play([{"card": "broken-lantern", "target": 0}])
    t.pass_turn()
    t.dig_to_gold()
    game.look()
    assert t.game().draft is not None
    while t.game().draft is not None:
        t.phone_of(t.game().draft.picker).post("pick", {"index": 0})
        game.look()
    game.plant_canaries()
    game.look()
    t.start()
    game.peek_and_play([])
    t.do("exhausted")
    game.look()
    t.start()
    game.peek_and_play([{"card": "broken-pickaxe", "target": 1}])
    t.dig_to_gold()
    game.look()
    t.settle()
    game.look()
    assert t.snapshot().phase == "over"
    return game


def play_saboteur2_game(app) -> Observed:
    game = Observed(app, "saboteur2", ["Ana", "Bo", "Cy", "Di", "Ed", "Flo"], frozenset({"Di"}))
    t = game.table
    t.start()
    game.look()
    game.peek_and_play([{"card": "theft"}, {"card": "theft"}, {"card": "trapped", "target": 5}])
    t.dig_to_gold()
    game.look()
    assert t.game().thefts, "two thieves lay theft cards"
    t.settle()
    game.look()
    game.plant_canaries()
    game.look()
    t.start()
    game.peek_and_play([{"card": "theft"}])
    t.do("exhausted")
    game.look()
    t.settle()
    game.look()
    t.start()
    game.peek_and_play([{"card": "theft"}])
    t.dig_to_gold()
    game.look()
    t.settle()
    assert t.snapshot().phase == "over"
    return game


# ------------------------------------------------------------------ the tests


@pytest.mark.parametrize("play", [play_base_game, play_saboteur2_game], ids=["saboteur", "saboteur2"])
def test_no_answer_to_a_seat_carries_another_seats_secrets(app, play):
    game = play(app)
    received = sum(len(r) for _, r, _ in game.receivers())
    assert received > 200
    assert audit(game.table, game.truth, game.receivers()) == []
    # The canaries were visible where they belong, so the search for them meant something.
    for phone in game.phones:
        seat = game.table.snapshot().seats.index(next(s for s in game.table.snapshot().seats if s.name == phone.name))
        own = [json.loads(r.text)["view"]["me"]["gold"] for r in phone.received
               if r.kind == "json" and "view" in json.loads(r.text) and "gold" in json.loads(r.text)["view"].get("me", {})]
        assert any(canary(seat) in gold for gold in own)


def test_the_search_finds_planted_leaks(app, monkeypatch):
    import companion_web.views as views

    honest = views._seats

    def leaky(snap, ctx):
        rows = honest(snap, ctx)
        game = snap.game
        if game is not None and game.round is not None:
            for seat, row in enumerate(rows):
                row["dwarf"] = game.round.seats[seat].role
                row["purse"] = sum(game.gold[seat])
        return rows

    monkeypatch.setattr(views, "_seats", leaky)
    game = Observed(app, "saboteur", ["Ana", "Bo", "Cy", "Di"])
    game.table.start()
    game.look()
    game.table.do("exhausted")
    game.table.settle()
    game.plant_canaries()
    game.look()
    problems = audit(game.table, game.truth, game.receivers())
    assert any("role word" in p for p in problems)
    assert any("another seat's gold" in p for p in problems)
    assert any(p.startswith("table") for p in problems)


def test_the_search_finds_a_leaked_peek_and_a_leaked_private_line(app, monkeypatch):
    import companion_web.views as views

    honest_log = views._log

    def leaky_log(snap, me, lang):  # every private line to everyone
        return honest_log(snap, None, lang) + [views.describe(e, snap.names, lang) for e in snap.log if e.private_to is not None]

    monkeypatch.setattr(views, "_log", leaky_log)
    game = Observed(app, "saboteur", ["Ana", "Bo", "Cy"])
    game.table.start()
    game.peek_and_play([])
    problems = audit(game.table, game.truth, game.receivers())
    assert any("private lines that are not this seat's" in p for p in problems)

    monkeypatch.setattr(views, "_log", honest_log)
    honest_board = views._board

    def leaky_board(snap, lang):
        board = dict(honest_board(snap, lang))
        board["secret"] = [face for face in snap.game.round.board.hidden_goals.values()]
        return board

    monkeypatch.setattr(views, "_board", leaky_board)
    game.look()
    assert any("face-down goal" in p for p in audit(game.table, game.truth, game.receivers()))
