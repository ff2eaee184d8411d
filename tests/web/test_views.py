"""``view_for``: what each seat, the table and the host see, for every role and every state.

The strongest test here is non-interference: changing everything another player keeps
secret (their role, hand, peeks, gold, their place in the gold draft, whether they won,
the unseen goal faces) must not change one byte of a seat's view, and changing every
secret must not change the table's. States come from simulated games played by the
engine's computer players, so every phase and both editions are covered.
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from companion_web.i18n import translate
from companion_web.logbook import from_engine
from companion_web.snapshot import Contested, LogEntry, SeatInfo, Snapshot, Tabletop
from companion_web.views import HOST_VIEWER, TABLE_VIEWER, Context, Viewer, public_board, view_for
from engine.autoplay import choose_move
from engine.board import Placement
from engine.game import Game, Move
from engine.options import Rules

NAMES = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kai", "Lu"]
BASE_ROLES = ["miner", "saboteur", "selfish-dwarf"]
S2_ROLES = ["blue-digger", "green-digger", "boss", "profiteer", "geologist", "saboteur"]


def snapshot_of(game: Game, *, log: list[LogEntry] = (), round_start: dict | None = None,
                contested: tuple = (), version: int = 1) -> Snapshot:
    names = game.names
    engine = json.dumps(game.to_json())
    return Snapshot(game_id="g1", edition=game.rules.game, options=tuple(game.rules.options()), version=version,
                    engine_text=engine,
                    tabletop=Tabletop(round_start=json.dumps(round_start) if round_start else engine,
                                      contested=tuple(contested)),
                    seats=tuple(SeatInfo(i + 1, i + 1, n, f"hash{i}") for i, n in enumerate(names)),
                    log=tuple(LogEntry(e.kind, e.params, e.private_to, i + 1) for i, e in enumerate(log)))


def seat_view(snap: Snapshot, seat: int, lang: str = "en") -> dict:
    return view_for(snap, Viewer("seat", seat + 1), Context(lang=lang))


def table_game(edition="saboteur", players=4, options="", seed=3) -> Game:
    game = Game(Rules.parse(edition, options), NAMES[:players], tracked=False)
    game.start_round(random.Random(seed))
    return game


def with_role(game: Game, seat: int, role: str) -> Game:
    game.round.seats[seat].role = role
    return game


# ------------------------------------------------------------------ per role and state


@pytest.mark.parametrize("edition,role", [("saboteur", r) for r in BASE_ROLES] + [("saboteur2", r) for r in S2_ROLES])
@pytest.mark.parametrize("lang", ["en", "pl"])
def test_a_seat_sees_its_own_role_and_nobody_elses(edition, role, lang):
    game = with_role(table_game(edition, 5, "selfish-dwarf" if edition == "saboteur" else ""), 2, role)
    snap = snapshot_of(game)
    view = seat_view(snap, 2, lang)
    assert view["me"]["role"] == role
    assert view["me"]["role_name"] and view["me"]["role_name"] != role  # translated, not the id
    assert view["me"]["role_hint"]
    others = json.dumps({k: v for k, v in view.items() if k != "me"})
    assert view["me"]["role_name"] not in others.replace(view["game"]["title"], "")
    for seat in view["seats"]:
        assert set(seat) == {"seat", "slot", "name", "connected", "claimable", "turn", "broken", "broken_ids",
                             "trapped", "theft"}


def test_table_and_host_views_hold_no_private_block():
    snap = snapshot_of(table_game())
    for viewer in (TABLE_VIEWER, HOST_VIEWER):
        view = view_for(snap, viewer, Context())
        assert "me" not in view and "final" not in view
    assert "host" in view_for(snap, HOST_VIEWER, Context())
    assert "host" not in view_for(snap, TABLE_VIEWER, Context())


def test_lobby_views():
    snap = Snapshot("g1", "saboteur", (), 3, None, Tabletop(), (SeatInfo(7, 2, "Ana", "h"),), ())
    view = view_for(snap, Viewer("seat", 7), Context())
    assert view["game"]["phase"] == "lobby"
    assert view["me"] == {"seat": 0, "name": "Ana"}
    assert view["turn"] is None
    assert [g["state"] for g in view["board"]["goals"]] == ["hidden"] * 3
    host = view_for(snap, HOST_VIEWER, Context())
    assert host["host"]["can_start"] is False and "3" in host["host"]["start_blocker"]


def test_turn_is_addressed_to_the_player_whose_turn_it_is():
    game = table_game()
    snap = snapshot_of(game)
    turn = game.round.turn
    assert seat_view(snap, turn)["me"]["my_turn"] is True
    assert seat_view(snap, turn)["status"] == "Your turn"
    other = (turn + 1) % game.players
    assert seat_view(snap, other)["me"]["my_turn"] is False
    assert seat_view(snap, other)["status"] == f"{NAMES[turn]}'s turn"
    assert view_for(snap, TABLE_VIEWER, Context())["turn"] == {"seat": turn, "name": NAMES[turn]}


def test_goal_peek_goes_to_the_peeker_only():
    game = table_game()
    cell = (8, 0)
    events = game.play(Move(1, "map", "map", cell=cell))
    snap = snapshot_of(game, log=from_engine(events))
    face = game.round.board.hidden_goals[cell]
    mine = seat_view(snap, 1)
    assert mine["me"]["peeks"][0]["gold"] == (face == "goal-gold")
    assert any(line["tone"] == "private" for line in mine["log"])
    for seat in (0, 2, 3):
        view = seat_view(snap, seat)
        assert view["me"]["peeks"] == []
        assert all(line["tone"] != "private" for line in view["log"])
        assert "looked at the goal at (8,0)" in json.dumps(view["log"])  # that a map was played is public
    table = view_for(snap, TABLE_VIEWER, Context())
    assert face not in json.dumps(table)


def test_inspection_shows_the_inspected_role_to_the_inspector_only():
    game = table_game("saboteur2", 4)
    events = game.play(Move(0, "inspection", "inspection", target=3))
    snap = snapshot_of(game, log=from_engine(events))
    role = game.round.seats[3].role
    peek = seat_view(snap, 0)["me"]["peeks"][0]
    assert peek["kind"] == "role" and NAMES[3] in peek["text"]
    assert seat_view(snap, 3)["me"]["peeks"] == []
    assert seat_view(snap, 1)["me"]["peeks"] == []
    assert role == seat_view(snap, 3)["me"]["role"]


def test_swapped_hat_shows_the_new_role_to_its_owner():
    game = table_game("saboteur2", 4)
    before = game.round.seats[2].role
    events = game.play(Move(0, "swap-hats", "swap-hats", target=2), random.Random(5))
    snap = snapshot_of(game, log=from_engine(events))
    after = game.round.seats[2].role
    assert seat_view(snap, 2)["me"]["role"] == after
    private = [line["text"] for line in seat_view(snap, 2)["log"] if line["tone"] == "private"]
    assert private == [f"Your new role: {translate('en', f'role.{after}')}."]
    assert before in S2_ROLES and after in S2_ROLES
    assert all(line["tone"] != "private" for line in seat_view(snap, 0)["log"])


def reach_gold(game: Game) -> list:
    gold = next(c for c, f in game.round.board.hidden_goals.items() if f == "goal-gold")
    route = [(x, 0) for x in range(1, 8)]
    if gold[1]:
        step = 1 if gold[1] > 0 else -1
        route += [(7, y) for y in range(step, gold[1] + step, step)]
    events = []
    for x, y in route:
        if game.round.ended:
            break
        events += game.play(Move(game.round.turn, "place", "cross", Placement(x, y, "cross")))
    assert game.round.ended
    return events


def test_the_draft_shows_the_cards_to_the_picker_only():
    game = table_game("saboteur", 5, seed=8)
    for seat in range(5):
        with_role(game, seat, "miner")
    with_role(game, 3, "saboteur")
    start = copy.deepcopy(game.to_json())  # to_json shares lists with the live game
    events = reach_gold(game)
    snap = snapshot_of(game, log=from_engine(events), round_start=start)
    picker = game.draft.picker
    assert seat_view(snap, picker)["me"]["pick"] == {"cards": game.draft.cards}
    assert seat_view(snap, picker)["status"] == "Your pick: take one gold card"
    for seat in set(range(5)) - {picker}:
        view = seat_view(snap, seat)
        assert view["me"]["pick"] is None
        assert str(len(game.draft.cards)) in view["status"]
    table = view_for(snap, TABLE_VIEWER, Context())
    assert table["sharing"] == {"active": True, "cards_left": len(game.draft.cards), "thief": None}
    assert "order" not in json.dumps(table["sharing"])
    while game.draft is not None:
        game.pick_gold(game.draft.picker, 0)
    done = snapshot_of(game, round_start=start)
    assert seat_view(done, 3)["me"]["won"] is False
    winners = [s for s in range(5) if s != 3]
    assert all(seat_view(done, s)["me"]["won"] is True for s in winners)
    assert sum(seat_view(done, s)["me"]["round_gold"] for s in winners) == sum(sum(g) for g in game.gold)
    result = view_for(done, TABLE_VIEWER, Context())["result"]
    assert {k: v for k, v in result.items() if k != "roles"} == {
        "round": 1, "gold_reached": True, "finisher": NAMES[game.round.finisher]}


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_the_dwarf_cards_are_turned_over_when_the_round_ends_for_every_screen(lang):
    game = table_game("saboteur", 5, seed=8)
    roles = ["miner", "saboteur", "miner", "miner", "saboteur"]
    for seat, role in enumerate(roles):
        with_role(game, seat, role)
    playing = snapshot_of(game)
    viewers = [Viewer("seat", s + 1) for s in range(5)] + [TABLE_VIEWER, HOST_VIEWER]
    assert all(view_for(playing, v, Context(lang=lang))["result"] is None for v in viewers)
    start = copy.deepcopy(game.to_json())
    reach_gold(game)
    ended = snapshot_of(game, round_start=start)
    names = {r: translate(lang, f"role.{r}") for r in set(roles)}
    for viewer in viewers:
        shown = view_for(ended, viewer, Context(lang=lang))["result"]["roles"]
        assert shown == [{"seat": s, "name": NAMES[s], "role": r, "role_name": names[r]} for s, r in enumerate(roles)]


def test_a_thief_chooses_a_victim_and_nobody_else_does():
    game = table_game("saboteur2", 5, seed=4)
    roles = ["blue-digger", "blue-digger", "saboteur", "green-digger", "boss"]
    for seat, role in enumerate(roles):
        with_role(game, seat, role)
    game.play(Move(2, "theft", "theft"))
    reach_gold(game)
    assert game.thefts == [2]
    snap = snapshot_of(game)
    thief = seat_view(snap, 2)
    assert thief["me"]["steal"]["victims"] == [{"seat": s, "name": NAMES[s]} for s in (0, 1, 3, 4)]
    assert thief["status"] == "You may steal 1 gold"
    for seat in (0, 1, 3, 4):
        assert seat_view(snap, seat)["me"]["steal"] is None
        assert seat_view(snap, seat)["status"] == f"{NAMES[2]} may steal 1 gold"
    assert view_for(snap, TABLE_VIEWER, Context())["sharing"]["thief"] == {"seat": 2, "name": NAMES[2]}


def test_the_end_of_the_game_reveals_everything_to_everyone():
    game = table_game()
    for _ in range(3):
        if game.round_number < 3 and game.round.ended:
            game.start_round(random.Random(1))
        game.end_round_exhausted()
    assert game.over
    snap = snapshot_of(game)
    for view in [seat_view(snap, s) for s in range(4)] + [view_for(snap, TABLE_VIEWER, Context())]:
        final = view["final"]
        assert [p["total"] for p in final["players"]] == game.totals()
        assert all(len(p["roles"]) == 3 for p in final["players"])
        assert final["ranking"][0]["gold"] == max(game.totals())
    assert seat_view(snap, 0)["status"] == "The game is over."


def test_contested_cards_and_the_verdict_line():
    game = table_game()
    bad = Placement(1, 0, "straight-ns")
    reasons = tuple((r.code, r.message) for r in game.round.board.check(bad).reasons)
    entry = LogEntry("illegal", {"seat": 0, **bad.to_dict(), "reasons": [list(r) for r in reasons]})
    snap = snapshot_of(game, log=[entry], contested=(Contested(1, 0, "straight-ns", 0, 0, reasons),))
    view = view_for(snap, TABLE_VIEWER, Context(lang="pl"))
    assert view["contested"][0]["name"] == "Ana"
    assert "zachodniej" in view["contested"][0]["reasons"][0]
    assert view["verdict"]["tone"] == "bad" and "niedozwolone" in view["verdict"]["text"]
    assert 'class="cell contested"' in view["board"]["svg"]


def test_the_public_board_knows_no_goal_face():
    game = table_game()
    board = public_board(snapshot_of(game))
    assert set(board.hidden_goals.values()) == {None}
    for x in range(1, 8):
        board.put(Placement(x, 0, "cross"))
    verdict = board.check(Placement(7, 1, "cross"))
    assert verdict.gold_reached is False  # the real board might say yes: a check must not tell


# ------------------------------------------------------------------ non-interference


def simulated_states(edition: str, players: int, options: str, seed: int, every: int):
    """(snapshot, phase) pairs along a whole simulated game, with its log."""
    rng = random.Random(seed)
    game = Game(Rules.parse(edition, options), NAMES[:players])
    log: list[LogEntry] = []
    start = None
    while not game.over:
        game.start_round(rng)
        start = copy.deepcopy(game.to_json())
        step = 0
        while not game.round.ended:
            log += from_engine(game.play(choose_move(game.round, rng), rng))
            step += 1
            if step % every == 0:
                yield snapshot_of(game, log=log, round_start=start)
        yield snapshot_of(game, log=log, round_start=start)
        while game.draft is not None:
            log += from_engine(game.pick_gold(game.draft.picker, rng.randrange(len(game.draft.cards))))
            yield snapshot_of(game, log=log, round_start=start)
        while game.thefts:
            thief = game.thefts[0]
            victims = [s for s in range(game.players) if s != thief and sum(game.gold[s]) >= 1]
            log += from_engine(game.steal(thief, victims[0]) if victims else game.skip_theft(thief))
            yield snapshot_of(game, log=log, round_start=start)


def scramble(snap: Snapshot, keep: int | None, rng: random.Random) -> Snapshot:
    """The same public game with every secret not belonging to seat ``keep`` replaced."""
    roles = S2_ROLES if snap.edition == "saboteur2" else BASE_ROLES

    def game_doc(doc: dict) -> dict:
        doc = copy.deepcopy(doc)
        others = [s for s in range(len(doc["names"])) if s != keep]
        r = doc["round"]
        peeked = {tuple(p["cell"]) for p in r["seats"][keep]["peeks"] if p.get("kind") == "goal"} if keep is not None else set()
        for s in others:
            seat = r["seats"][s]
            if not r["ended"]:  # the dwarf cards are turned over when the round ends
                seat["role"] = rng.choice(roles)
            seat["peeks"] = [{"kind": "goal", "cell": [8, rng.choice([-2, 0, 2])], "face": rng.choice(
                ["goal-gold", "goal-stone-ne"])} for _ in range(rng.randrange(3))]
            if seat["hand"] is not None:
                seat["hand"] = [rng.choice(["cross", "map", "rockfall"]) for _ in seat["hand"]]
            doc["gold"][s] = [rng.randint(1, 3) for _ in range(rng.randrange(4))]
        hidden = [g for g in r["board"]["hidden_goals"] if (g["x"], g["y"]) not in peeked]
        faces = [g["face"] for g in hidden]
        rng.shuffle(faces)
        for g, face in zip(hidden, faces):
            g["face"] = face
        r["unused_roles"] = [rng.choice(roles) for _ in r["unused_roles"]]
        for pile in ("draw_pile", "discard_pile", "set_aside"):
            if r[pile]:
                rng.shuffle(r[pile])
        for summary in doc["results"] + ([doc["pending_summary"]] if doc.get("pending_summary") else []):
            for s in others:
                summary["roles"][s] = rng.choice(roles)
            summary["winners"] = sorted({w for w in summary["winners"] if w == keep}
                                        | {s for s in others if rng.random() < .5})
        draft = doc["draft"]
        if draft is not None:
            picker = draft["order"][len(draft["picks"]) % len(draft["order"])]
            if picker != keep:
                draft["cards"] = [rng.randint(1, 3) for _ in draft["cards"]]
                draft["order"] = [rng.choice(others) for _ in draft["order"]]
            else:
                draft["order"] = [keep if s == keep else rng.choice(others) for s in draft["order"]]
            draft["picks"] = [p if p[0] == keep else [rng.choice(others), rng.randint(1, 3)] for p in draft["picks"]]
        return doc

    def entry(e: LogEntry) -> LogEntry:
        if e.private_to is None or e.private_to == keep:
            return e
        params = dict(e.params)
        for key in params:
            if key in ("amount", "gold", "role"):
                params[key] = {"amount": rng.randint(1, 9), "gold": rng.random() < .5,
                               "role": rng.choice(roles)}[key]
        return LogEntry(e.kind, params, e.private_to, e.id)

    engine = game_doc(json.loads(snap.engine_text))
    start = game_doc(json.loads(snap.tabletop.round_start))
    return Snapshot(snap.game_id, snap.edition, snap.options, snap.version, json.dumps(engine),
                    Tabletop(json.dumps(start), snap.tabletop.round_log, snap.tabletop.contested),
                    snap.seats, tuple(entry(e) for e in snap.log))


@pytest.mark.parametrize("edition,players,options,seed", [
    ("saboteur", 4, "", 1),
    ("saboteur", 7, "selfish-dwarf,broken-tools-forfeit", 2),
    ("saboteur", 5, "gold-count=miners", 3),
    ("saboteur2", 6, "", 4),
    ("saboteur2", 10, "", 5),
])
def test_no_view_depends_on_anyone_elses_secrets(edition, players, options, seed):
    rng = random.Random(seed)
    checked = 0
    for snap in simulated_states(edition, players, options, seed, every=9):
        if snap.phase == "over":
            continue
        lang = rng.choice(["en", "pl"])
        for seat in range(players):
            mine = view_for(snap, Viewer("seat", seat + 1), Context(lang=lang))
            theirs = view_for(scramble(snap, seat, rng), Viewer("seat", seat + 1), Context(lang=lang))
            assert mine == theirs, f"seat {seat}'s view changed with other seats' secrets ({snap.phase})"
        for viewer in (TABLE_VIEWER, HOST_VIEWER):
            assert view_for(snap, viewer, Context(lang=lang)) == view_for(scramble(snap, None, rng), viewer,
                                                                          Context(lang=lang))
        checked += 1
    assert checked > 10


def mismatches(snaps, rng) -> int:
    found = 0
    for snap in snaps:
        for seat in range(len(snap.seats)):
            viewer = Viewer("seat", seat + 1)
            found += view_for(snap, viewer, Context()) != view_for(scramble(snap, seat, rng), viewer, Context())
    return found


@pytest.mark.parametrize("leak", ["roles", "draft-order", "others-gold"])
def test_the_property_catches_a_leaky_view(monkeypatch, leak):
    """The non-interference check is only as good as its scrambler: planted leaks must fail it."""
    import companion_web.views as views

    honest_seats, honest_sharing = views._seats, views._sharing

    def leaky_seats(snap, ctx):
        rows = honest_seats(snap, ctx)
        game = snap.game
        for i, row in enumerate(rows):
            if leak == "roles":
                row["role"] = game.round.seats[i].role
            if leak == "others-gold":
                row["gold"] = sum(game.gold[i])
        return rows

    def leaky_sharing(snap):
        out = honest_sharing(snap)
        if snap.game.draft is not None:
            out["order"] = list(snap.game.draft.order)
        return out

    snaps = [s for s in simulated_states("saboteur", 5, "", 21, every=4) if s.phase != "over"]
    assert any(s.phase == "scoring" for s in snaps), "the sample must include a gold draft"
    assert mismatches(snaps, random.Random(1)) == 0
    monkeypatch.setattr(views, "_seats", leaky_seats)
    monkeypatch.setattr(views, "_sharing", leaky_sharing)
    assert mismatches(snaps, random.Random(1)) > 0
