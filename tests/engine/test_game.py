"""Rounds and games: dealing, turns, every action card, round ends, scoring flow, JSON, simulations."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engine.autoplay import choose_move, play_round, settle, simulate_game
from engine.board import GOAL_CELLS, Board, Placement
from engine.catalogue import default_catalogue
from engine.game import Draft, Event, Game, Move, MoveError, Round, SeatState, build_deck
from engine.options import Rules

CAT = default_catalogue()
BASE = Rules.parse("saboteur")
S2 = Rules.parse("saboteur2")
GOALS = ["goal-stone-nw", "goal-gold", "goal-stone-ne"]  # (8,2), (8,0), (8,-2)
M, S = "miner", "saboteur"
BLUE, GREEN, BOSS, PROF, GEO = "blue-digger", "green-digger", "boss", "profiteer", "geologist"
BASE_DECK = 40 + 27
S2_DECK = 40 + 27 + 24 + 20


def make_round(rules, roles, hands, pile=(), *, first=0, unused=None, cards=(), goals=GOALS) -> Round:
    """A tracked round with chosen roles, hands and draw pile (its top card is the LAST in ``pile``)."""
    board = Board.standard(goals)
    for x, y, face, rotation in cards:
        board.put(Placement(x, y, face, rotation))
    seats = [SeatState(role, list(hand)) for role, hand in zip(roles, hands)]
    return Round(rules, board, seats, first=first, draw_pile=list(pile), unused_roles=list(unused or []))


def rig_game(rules, roles, hands, pile=(), **kw) -> Game:
    """A game whose first round is replaced by a rigged one (the gold deck is the real one)."""
    game = Game(rules, [f"p{i}" for i in range(len(roles))])
    game.start_round(random.Random(0), first=kw.get("first", 0))
    game.round = make_round(rules, roles, hands, pile, **kw)
    return game


def row(y, xs, face="straight-ew"):
    return [(x, y, face, 0) for x in xs]


NEAR_GOLD = row(0, range(1, 7))  # a straight tunnel from the start to (6,0); (7,0) then reaches the gold


def place(seat, face, x, y, rotation=0) -> Move:
    return Move(seat, "place", face, Placement(x, y, face, rotation))


def pass_(seat, *cards) -> Move:
    return Move(seat, "pass", discards=tuple(cards))


def round_trip(obj, cls):
    doc = obj.to_json()
    again = cls.from_json(json.loads(json.dumps(doc)))
    assert again.to_json() == doc
    return again


# ----------------------------------------------------------------- dealing


@pytest.mark.parametrize("players", range(3, 11))
def test_base_deal_by_player_count(players):
    table = CAT.tables["base"]
    r = Round.deal(BASE, players, random.Random(players))
    hand = table["hand"][str(players)]
    assert r.players == players and r.tracked
    assert [len(s.hand) for s in r.seats] == [hand] * players
    pool = Counter(r.roles + r.unused_roles)
    assert pool == Counter({S: table["saboteurs"][str(players)], M: table["miners"][str(players)]})
    assert len(r.unused_roles) == 1  # one more dwarf card than players, the extra stays face down
    assert len(r.draw_pile) == BASE_DECK - players * hand
    dealt = Counter(r.draw_pile + [c for s in r.seats for c in s.hand])
    assert dealt == Counter(build_deck(BASE, CAT))
    assert r.set_aside == []
    assert sorted(r.board.hidden_goals.values()) == sorted(GOALS)
    assert set(r.board.hidden_goals) == set(GOAL_CELLS)
    assert r.board.at((0, 0)).face == "start"
    assert r.turn == 0 and r.first == 0


@pytest.mark.parametrize("players,hand", [(3, 6), (4, 6), (5, 6), (6, 5), (7, 5), (8, 4), (9, 4), (10, 4)])
def test_base_hand_sizes_from_the_digest(players, hand):
    r = Round.deal(BASE, players, random.Random(1))
    assert {len(s.hand) for s in r.seats} == {hand}


@pytest.mark.parametrize("players", range(3, 11))
def test_selfish_dwarf_is_added_to_the_dwarf_cards(players):
    r = Round.deal(Rules.parse("saboteur", "selfish-dwarf"), players, random.Random(players))
    pool = Counter(r.roles + r.unused_roles)
    assert pool["selfish-dwarf"] == 1
    assert sum(pool.values()) == players + 2
    assert len(r.unused_roles) == 2


@pytest.mark.parametrize("players", range(2, 13))
def test_saboteur2_deal_sets_ten_aside_and_gives_six_each(players):
    r = Round.deal(S2, players, random.Random(players))
    assert [len(s.hand) for s in r.seats] == [6] * players
    assert len(r.set_aside) == 10
    assert len(r.draw_pile) == S2_DECK - 10 - 6 * players
    assert Counter(r.roles + r.unused_roles) == Counter(CAT.roles["saboteur2"])
    assert len(r.unused_roles) == 15 - players
    everything = r.draw_pile + r.set_aside + [c for s in r.seats for c in s.hand]
    assert Counter(everything) == Counter(build_deck(S2, CAT))
    assert len(everything) == S2_DECK


@pytest.mark.parametrize("rules,players,words", [
    (BASE, 2, "Saboteur is played by 3 to 10 players, not 2"),
    (BASE, 11, "Saboteur is played by 3 to 10 players, not 11"),
    (S2, 1, "Saboteur 2 is played by 2 to 12 players, not 1"),
    (S2, 13, "Saboteur 2 is played by 2 to 12 players, not 13"),
])
def test_player_counts_outside_the_range_are_rejected(rules, players, words):
    with pytest.raises(MoveError) as info:
        Round.deal(rules, players, random.Random(0))
    assert str(info.value) == words
    with pytest.raises(MoveError, match=words):
        Round.at_table(rules, players, random.Random(0))
    with pytest.raises(MoveError, match=words):
        Game(rules, [f"p{i}" for i in range(players)])


def test_the_deal_depends_only_on_the_seed():
    a = Round.deal(BASE, 5, random.Random(42)).to_json()
    b = Round.deal(BASE, 5, random.Random(42)).to_json()
    c = Round.deal(BASE, 5, random.Random(43)).to_json()
    assert a == b and a != c


# ----------------------------------------------------------------- turns and drawing


def test_turn_order_is_clockwise_and_enforced():
    hands = [["map", "rockfall"]] * 4
    r = make_round(BASE, [M, M, S, M], hands, pile=["map"] * 10)
    assert r.turn == 0
    for seat in [0, 1, 2, 3, 0, 1]:
        assert r.turn == seat
        r.play(pass_(seat, "map"))
    assert r.turn == 2
    with pytest.raises(MoveError, match="it is seat 2's turn, not seat 3's") as refused:
        r.play(pass_(3, "map"))
    assert (refused.value.code, refused.value.params) == ("not-your-turn", {"seat": 2})  # for a translation
    with pytest.raises(MoveError, match="there is no seat 4") as refused:
        r.play(pass_(4, "map"))
    assert refused.value.code == "refused"  # no sentence of its own: shown in the engine's words


def test_a_round_can_start_at_any_seat():
    r = make_round(BASE, [M, M, S], [["map"]] * 3, pile=["map"] * 5, first=2)
    assert r.turn == 2
    r.play(pass_(2, "map"))
    assert r.turn == 0


def test_a_turn_draws_the_top_card():
    r = make_round(BASE, [M, M, S], [["straight-ew", "map"], ["map"], ["map"]], pile=["cross", "t-nes"])
    r.play(place(0, "straight-ew", 1, 0))
    assert r.seats[0].hand == ["map", "t-nes"]
    assert r.draw_pile == ["cross"]
    assert r.board.at((1, 0)) == Placement(1, 0, "straight-ew", 0)
    assert r.discard_pile == []  # a path card goes to the maze


def test_base_pass_discards_exactly_one_and_draws_one():
    r = make_round(BASE, [M, M, S], [["map", "cross"], ["map"], ["map"]], pile=["t-nes", "curve-ne"])
    with pytest.raises(MoveError, match="a pass discards one card"):
        r.play(pass_(0, "map", "cross"))
    with pytest.raises(MoveError, match="a pass discards one card"):
        r.play(pass_(0))
    r.play(pass_(0, "cross"))
    assert r.seats[0].hand == ["map", "curve-ne"]
    assert r.discard_pile == ["cross"]


def test_a_player_with_no_cards_passes_without_discarding():
    r = make_round(BASE, [M, M, S], [[], ["map"], ["map"]], pile=["t-nes"])
    with pytest.raises(MoveError, match="seat 0 does not hold map"):
        r.play(pass_(0, "map"))
    r.play(pass_(0))
    assert r.turn == 1 and r.history[-1] == pass_(0) and r.discard_pile == []


def test_nobody_draws_from_an_empty_pile():
    r = make_round(BASE, [M, M, S], [["straight-ew", "map"], ["map"], ["map"]])
    r.play(place(0, "straight-ew", 1, 0))
    assert r.seats[0].hand == ["map"]
    assert not r.ended


def test_saboteur2_pass_discards_one_to_three_and_draws_as_many():
    hand = ["map", "cross", "bridge", "theft"]
    r = make_round(S2, [BLUE, GREEN], [list(hand), ["map"]], pile=["cross"] * 4)
    with pytest.raises(MoveError, match="a pass discards 1 to 3 cards"):
        r.play(pass_(0, "map", "cross", "bridge", "theft"))
    with pytest.raises(MoveError, match="a pass discards 1 to 3 cards"):
        r.play(pass_(0))
    r.play(pass_(0, "map", "bridge", "theft"))
    assert r.seats[0].hand == ["cross", "cross", "cross", "cross"]
    assert len(r.draw_pile) == 1
    assert r.discard_pile == ["map", "bridge", "theft"]
    r.play(pass_(1, "map"))
    assert r.seats[1].hand == ["cross"] and r.draw_pile == []


def test_saboteur2_pass_draws_only_what_is_left():
    r = make_round(S2, [BLUE, GREEN], [["map", "map", "map"], ["map"]], pile=["cross"])
    r.play(pass_(0, "map", "map"))
    assert r.seats[0].hand == ["map", "cross"]


def test_saboteur2_remove_own_card_by_discarding_two_draws_one():
    r = make_round(S2, [BLUE, GREEN], [["map", "cross", "bridge"], ["map"]], pile=["t-nes", "curve-ne"])
    r.seats[0].broken.add("cart")
    with pytest.raises(MoveError, match="exactly two cards"):
        r.play(Move(0, "remove", tool="broken-cart", discards=("map",)))
    with pytest.raises(MoveError, match="there is no broken-pickaxe card in front of seat 0"):
        r.play(Move(0, "remove", tool="broken-pickaxe", discards=("map", "cross")))
    r.play(Move(0, "remove", tool="broken-cart", discards=("map", "cross")))
    assert r.seats[0].broken == set()
    assert r.seats[0].hand == ["bridge", "curve-ne"]  # two out, only one drawn
    assert sorted(r.discard_pile) == ["broken-cart", "cross", "map"]


def test_saboteur2_remove_own_trap_or_theft():
    r = make_round(S2, [BLUE, GREEN], [["map", "cross", "bridge", "cross"], ["map"]], pile=["map"] * 4)
    r.seats[0].trapped = True
    r.play(Move(0, "remove", tool="trapped", discards=("map", "cross")))
    assert not r.seats[0].trapped
    r.play(pass_(1, "map"))
    r.seats[0].theft = 0
    r.play(Move(0, "remove", tool="theft", discards=("bridge", "cross")))
    assert r.seats[0].theft is None


def test_removing_own_card_is_not_a_base_game_move():
    r = make_round(BASE, [M, S, M], [["map", "cross"], ["map"], ["map"]], pile=["map"])
    r.seats[0].broken.add("cart")
    with pytest.raises(MoveError, match="Saboteur 2 rule"):
        r.play(Move(0, "remove", tool="broken-cart", discards=("map", "cross")))


# ----------------------------------------------------------------- cards not held, bad moves


@pytest.mark.parametrize("move,words", [
    (place(0, "cross", 1, 0), "seat 0 does not hold cross"),
    (Move(0, "map", "map", cell=(8, 0)), "seat 0 does not hold map"),
    (Move(0, "break", "broken-cart", target=1), "seat 0 does not hold broken-cart"),
    (pass_(0, "cross"), "seat 0 does not hold cross"),
    (pass_(0, "straight-ew", "straight-ew"), "seat 0 does not hold straight-ew"),  # only one held
])
def test_a_card_not_in_hand_is_rejected_and_the_round_is_unchanged(move, words):
    r = make_round(BASE, [M, M, S], [["straight-ew", "rockfall"], ["map"], ["map"]], pile=["t-nes"])
    before = r.to_json()
    with pytest.raises(MoveError) as info:
        r.play(move)
    assert str(info.value) == words
    assert r.to_json() == before


def test_placing_a_card_without_naming_it_still_needs_it_in_hand():
    r = make_round(BASE, [M, M, S], [["straight-ew", "rockfall"], ["map"], ["map"]], pile=["t-nes"])
    before = r.to_json()
    with pytest.raises(MoveError):
        r.play(Move(0, "place", placement=Placement(1, 0, "cross", 0)))  # cross is not in the hand
    assert r.to_json() == before


def test_illegal_moves_leave_the_round_unchanged():
    r = make_round(BASE, [M, M, S], [["straight-ns", "rockfall", "repair-cart", "map"], ["map"], ["map"]],
                   pile=["t-nes"])
    before = r.to_json()
    bad = [
        (place(0, "straight-ns", 1, 0), "the west edge is rock but the card at (0,0) has a tunnel there"),
        (Move(0, "place", "rockfall", Placement(1, 0, "straight-ns")), "the card played (rockfall) is not the card placed"),
        (Move(0, "rockfall", "rockfall", cell=(0, 0)), "a rockfall cannot remove the start card at (0,0)"),
        (Move(0, "rockfall", "rockfall", cell=(8, 0)), "a rockfall cannot remove a goal card at (8,0)"),
        (Move(0, "rockfall", "rockfall", cell=(3, 3)), "there is no card at (3,3)"),
        (Move(0, "rockfall", "rockfall"), "a rockfall names the card to remove"),
        (Move(0, "repair", "repair-cart", target=1), "seat 1 has no broken cart to repair"),
        (Move(0, "map", "map", cell=(1, 1)), "a map looks at a face-down goal card"),
        (Move(0, "map", "rockfall", cell=(8, 0)), "rockfall is not a map card"),
        (Move(0, "teleport", "map"), "unknown kind of move 'teleport'"),
        (Move(0, "repair", "repair-cart"), "this card needs a target seat"),
        (Move(0, "repair", "repair-cart", target=7), "this card needs a target seat"),
    ]
    for move, words in bad:
        with pytest.raises(MoveError) as info:
            r.play(move)
        assert words in str(info.value), move
        assert r.to_json() == before, move


# ----------------------------------------------------------------- broken tools and repairs


def test_at_most_one_broken_tool_of_each_kind():
    hands = [["broken-pickaxe", "broken-pickaxe", "broken-lantern", "broken-cart"], ["map"] * 3, ["map"] * 3]
    r = make_round(BASE, [S, M, M], hands, pile=["map"] * 10)
    events = r.play(Move(0, "break", "broken-pickaxe", target=1))
    assert events[0].kind == "tool-broken" and events[0].data == {"target": 1, "tool": "pickaxe"}
    assert r.seats[1].broken == {"pickaxe"}
    r.play(pass_(1, "map"))
    r.play(pass_(2, "map"))
    before = r.to_json()
    with pytest.raises(MoveError, match="seat 1 already has a broken pickaxe"):
        r.play(Move(0, "break", "broken-pickaxe", target=1))
    assert r.to_json() == before
    r.play(Move(0, "break", "broken-lantern", target=1))
    r.play(pass_(1, "map"))
    r.play(pass_(2, "map"))
    r.play(Move(0, "break", "broken-cart", target=1))
    assert r.seats[1].broken == {"pickaxe", "lantern", "cart"}
    assert "broken-pickaxe" not in r.discard_pile  # it lies in front of the player


def test_a_broken_tool_may_target_oneself():
    r = make_round(BASE, [S, M, M], [["broken-cart", "map"], ["map"], ["map"]], pile=["map"])
    r.play(Move(0, "break", "broken-cart", target=0))
    assert r.seats[0].broken == {"cart"}


def test_a_player_with_a_broken_tool_cannot_place_but_can_play_actions():
    r = make_round(BASE, [M, S, M], [["straight-ew", "map"], ["map"], ["map"]], pile=["map"] * 5)
    r.seats[0].broken.add("lantern")
    with pytest.raises(MoveError, match="the player has a broken lantern in front of them"):
        r.play(place(0, "straight-ew", 1, 0))
    assert (1, 0) not in r.board
    r.play(Move(0, "map", "map", cell=(8, 2)))
    assert r.turn == 1


def test_a_double_repair_fixes_one_tool_and_must_say_which():
    hands = [["repair-pickaxe-lantern", "map"], ["map"], ["map"]]
    r = make_round(BASE, [M, M, S], hands, pile=["map"] * 4)
    r.seats[1].broken |= {"pickaxe", "lantern"}
    with pytest.raises(MoveError, match="repair-pickaxe-lantern repairs pickaxe or lantern; say which"):
        r.play(Move(0, "repair", "repair-pickaxe-lantern", target=1))
    with pytest.raises(MoveError, match="say which"):
        r.play(Move(0, "repair", "repair-pickaxe-lantern", target=1, tool="cart"))
    events = r.play(Move(0, "repair", "repair-pickaxe-lantern", target=1, tool="lantern"))
    assert r.seats[1].broken == {"pickaxe"}  # one tool, not both
    assert events[0].kind == "tool-repaired" and events[0].data == {"target": 1, "tool": "lantern"}
    assert sorted(r.discard_pile) == ["broken-lantern", "repair-pickaxe-lantern"]


def test_repair_only_where_a_matching_broken_tool_lies():
    hands = [["repair-pickaxe-cart", "repair-cart", "map"], ["map"], ["map"]]
    r = make_round(BASE, [M, M, S], hands, pile=["map"] * 4)
    r.seats[2].broken.add("lantern")
    with pytest.raises(MoveError, match="seat 2 has no broken pickaxe to repair"):
        r.play(Move(0, "repair", "repair-pickaxe-cart", target=2, tool="pickaxe"))
    with pytest.raises(MoveError, match="seat 2 has no broken cart to repair"):
        r.play(Move(0, "repair", "repair-cart", target=2))
    r.seats[0].broken.add("cart")
    r.play(Move(0, "repair", "repair-cart", target=0))  # oneself included
    assert r.seats[0].broken == set() and r.seats[2].broken == {"lantern"}


# ----------------------------------------------------------------- map and rockfall


def test_map_peek_goes_only_to_the_peeking_seat():
    r = make_round(BASE, [M, S, M], [["map", "map"], ["map"], ["map"]], pile=["map"] * 3)
    events = r.play(Move(0, "map", "map", cell=(8, 0)))
    public = [e for e in events if e.private_to is None]
    private = [e for e in events if e.private_to is not None]
    assert [e.kind for e in public] == ["map"]
    assert "face" not in public[0].data and "gold" not in public[0].text
    assert len(private) == 1 and private[0].private_to == 0 and private[0].kind == "peek"
    assert private[0].data == {"cell": [8, 0], "face": "goal-gold"}
    assert "the gold" in private[0].text
    assert r.seats[0].peeks == [{"kind": "goal", "cell": [8, 0], "face": "goal-gold"}]
    assert r.seats[1].peeks == [] and r.seats[2].peeks == []
    assert private[0].to_json()["private_to"] == 0
    assert "private_to" not in public[0].to_json()
    assert "map" in r.discard_pile


def test_rockfall_removes_a_path_card_and_disconnects_the_rest():
    r = make_round(BASE, [S, M, M], [["rockfall", "map"], ["map"], ["map"]], pile=["map"] * 3,
                   cards=row(0, range(1, 5)))
    events = r.play(Move(0, "rockfall", "rockfall", cell=(2, 0)))
    assert events[0].kind == "card-removed"
    assert events[0].data == {"placement": {"x": 2, "y": 0, "face": "straight-ew", "rotation": 0}}
    assert (2, 0) not in r.board
    assert not r.board.is_reachable((3, 0)) and r.board.is_reachable((1, 0))
    assert r.discard_pile == ["rockfall"]


# ----------------------------------------------------------------- Saboteur 2 actions


def s2_round(roles, hands, pile=None, unused=None):
    return make_round(S2, roles, hands, pile if pile is not None else ["map"] * 12, unused=unused)


def test_theft_is_laid_in_front_of_oneself_once():
    r = s2_round([S, BLUE, GREEN], [["theft", "theft", "map"], ["map", "map"], ["map", "map"]])
    r.play(pass_(0, "map"))
    r.play(pass_(1, "map"))
    r.play(pass_(2, "map"))
    r.play(Move(0, "theft", "theft"))
    assert r.seats[0].theft == 3  # the turn it was laid: the order of stealing
    assert "theft" not in r.discard_pile
    r.play(pass_(1, "map"))
    r.play(pass_(2, "map"))
    with pytest.raises(MoveError, match="two theft cards"):
        r.play(Move(0, "theft", "theft"))


def test_hands_off_removes_a_theft_card():
    r = s2_round([S, BLUE, GREEN], [["theft", "map"], ["hands-off", "hands-off"], ["map"]])
    with pytest.raises(MoveError):
        r.play(Move(1, "hands-off", "hands-off", target=0))  # not seat 1's turn
    r.play(Move(0, "theft", "theft"))
    before = r.to_json()
    with pytest.raises(MoveError, match="seat 2 has no theft card"):
        r.play(Move(1, "hands-off", "hands-off", target=2))
    assert r.to_json() == before
    events = r.play(Move(1, "hands-off", "hands-off", target=0))
    assert events[0].kind == "theft-removed"
    assert r.seats[0].theft is None
    assert sorted(r.discard_pile) == ["hands-off", "theft"]


def test_swap_hats_uses_the_injected_random_generator():
    r = s2_round([BLUE, GREEN, S], [["swap-hats", "map"], ["map"], ["map"]], unused=[S, BOSS, GEO, PROF])
    with pytest.raises(MoveError, match="pass a random generator"):
        r.play(Move(0, "swap-hats", "swap-hats", target=1))
    expected_pick = random.Random(7).randrange(4)
    new_role = [S, BOSS, GEO, PROF][expected_pick]
    events = r.play(Move(0, "swap-hats", "swap-hats", target=1), random.Random(7))
    assert r.seats[1].role == new_role
    assert GREEN in r.unused_roles and new_role not in r.unused_roles and len(r.unused_roles) == 4
    public = [e for e in events if e.private_to is None]
    private = [e for e in events if e.private_to is not None]
    assert [e.kind for e in public] == ["hat-swapped"] and "role" not in public[0].data
    assert new_role not in public[0].text
    assert len(private) == 1 and private[0].private_to == 1 and private[0].data == {"role": new_role}


def test_swap_hats_on_oneself_changes_role():
    r = s2_round([BLUE, GREEN, S], [["swap-hats", "map"], ["map"], ["map"]], unused=[S])
    r.play(Move(0, "swap-hats", "swap-hats", target=0), random.Random(1))
    assert r.seats[0].role == S and r.unused_roles == [BLUE]


def test_swap_hands_then_the_target_draws():
    hands = [["swap-hands", "cross", "bridge"], ["map", "theft", "trapped", "inspection"], ["map"]]
    r = s2_round([BLUE, GREEN, S], hands, pile=["curve-ne", "t-nes", "dead-n"])
    with pytest.raises(MoveError, match="played on another player"):
        r.play(Move(0, "swap-hands", "swap-hands", target=0))
    events = r.play(Move(0, "swap-hands", "swap-hands", target=1))
    assert events[0].kind == "hands-swapped"
    # The digest: "that player then draws a card", and every action turn ends with "then draw 1".
    # The engine reads both literally: the target gets the mover's hand (less the card played)
    # and draws the top card; the mover takes the target's hand and draws as after any action.
    assert r.seats[1].hand == ["cross", "bridge", "dead-n"]
    assert r.seats[0].hand == ["map", "theft", "trapped", "inspection", "t-nes"]
    assert r.draw_pile == ["curve-ne"]
    assert "swap-hands" in r.discard_pile


def test_trapped_player_cannot_place_and_is_freed_by_free_at_last():
    hands = [["trapped", "trapped"], ["straight-ew", "map"], ["free-at-last", "free-at-last"]]
    r = s2_round([S, BLUE, GREEN], hands)
    with pytest.raises(MoveError, match="played on another player"):
        r.play(Move(0, "trap", "trapped", target=0))
    events = r.play(Move(0, "trap", "trapped", target=1))
    assert events[0].kind == "trapped" and r.seats[1].trapped
    assert "trapped" not in r.discard_pile
    before = r.to_json()
    with pytest.raises(MoveError, match="the player is trapped and may not lay path cards"):
        r.play(place(1, "straight-ew", 1, 0))
    assert r.to_json() == before
    assert r.legal_moves(1) and all(m.kind != "place" for m in r.legal_moves(1))
    r.play(pass_(1, "map"))
    with pytest.raises(MoveError, match="seat 0 is not trapped"):
        r.play(Move(2, "free", "free-at-last", target=0))
    r.play(Move(2, "free", "free-at-last", target=1))
    assert not r.seats[1].trapped
    assert sorted(r.discard_pile) == ["free-at-last", "map", "trapped"]
    r.seats[1].trapped = True  # trapped again meanwhile
    with pytest.raises(MoveError, match="seat 1 is already trapped"):
        r.play(Move(0, "trap", "trapped", target=1))


def test_inspection_is_private_to_the_inspector():
    r = s2_round([S, BLUE, GREEN], [["inspection", "inspection"], ["map"], ["map"]])
    with pytest.raises(MoveError, match="played on another player"):
        r.play(Move(0, "inspection", "inspection", target=0))
    events = r.play(Move(0, "inspection", "inspection", target=2))
    public = [e for e in events if e.private_to is None]
    private = [e for e in events if e.private_to is not None]
    assert [e.kind for e in public] == ["inspection"] and GREEN not in public[0].text
    assert private[0].private_to == 0 and private[0].data == {"seat": 2, "role": GREEN}
    assert r.seats[0].peeks == [{"kind": "role", "seat": 2, "role": GREEN}]


@pytest.mark.parametrize("move", [
    Move(0, "theft", "theft"),
    Move(0, "trap", "trapped", target=1),
    Move(0, "inspection", "inspection", target=1),
])
def test_saboteur2_actions_do_not_belong_to_the_base_game(move):
    r = make_round(BASE, [S, M, M], [[move.card, "map"], ["map"], ["map"]], pile=["map"])
    with pytest.raises(MoveError, match="belongs to Saboteur 2"):
        r.play(move)


# ----------------------------------------------------------------- end of a round


def test_round_ends_when_the_gold_is_reached():
    r = make_round(BASE, [M, S, M], [["straight-ew", "map"], ["map"], ["map"]], pile=["map"] * 5, cards=NEAR_GOLD)
    events = r.play(place(0, "straight-ew", 7, 0))
    kinds = [e.kind for e in events]
    assert kinds == ["placed", "goal-revealed", "round-end"]
    assert events[1].data == {"cell": [8, 0], "face": "goal-gold", "rotation": 0}
    assert events[2].data == {"reason": "gold", "finisher": 0}
    assert r.ended and r.end_reason == "gold" and r.finisher == 0
    assert r.seats[0].hand == ["map"]  # no draw once the round is over
    with pytest.raises(MoveError, match="the round is over"):
        r.play(pass_(1, "map"))


def test_reaching_a_stone_does_not_end_the_round():
    r = make_round(BASE, [M, S, M], [["straight-ew", "map"], ["map"], ["map"]], pile=["map"] * 5,
                   cards=row(0, range(1, 6)) + [(6, 0, "curve-nw", 0), (6, 1, "straight-ns", 0),
                                                (6, 2, "curve-nw", 180)])
    events = r.play(place(0, "straight-ew", 7, 2))
    assert [e.kind for e in events] == ["placed", "goal-revealed"]
    assert events[1].data["face"] == "goal-stone-nw" and "stone" in events[1].text
    assert not r.ended and r.finisher is None


def test_round_ends_when_the_pile_is_empty_and_everyone_passes():
    r = make_round(BASE, [M, S, M], [["map", "map"], ["map", "map"], ["map", "map"]])
    r.play(pass_(0, "map"))
    r.play(pass_(1, "map"))
    assert not r.ended
    events = r.play(pass_(2, "map"))
    assert r.ended and r.end_reason == "exhausted" and r.finisher is None
    assert events[-1].kind == "round-end" and events[-1].data == {"reason": "exhausted", "finisher": None}


def test_a_card_played_breaks_the_run_of_passes():
    r = make_round(BASE, [M, S, M], [["map"] * 3] * 3)
    r.play(pass_(0, "map"))
    r.play(pass_(1, "map"))
    r.play(Move(2, "map", "map", cell=(8, 2)))
    r.play(pass_(0, "map"))
    r.play(pass_(1, "map"))
    assert not r.ended and r.passes_in_a_row == 2
    r.play(pass_(2, "map"))
    assert r.ended and r.end_reason == "exhausted"


def test_round_ends_when_every_hand_is_empty_and_the_pile_too():
    r = make_round(BASE, [M, S, M], [["map"], [], []])
    r.play(Move(0, "map", "map", cell=(8, 2)))
    assert r.ended and r.end_reason == "exhausted"


def test_passes_made_before_the_pile_ran_out_do_not_end_the_round():
    # Seat 0 passes and draws the last card, a cross it can lay; seats 1 and 2 then pass. The pile
    # is empty but seat 0 has not yet passed with it empty, and holds a playable card: the digest
    # ends the round only when "every player has run out of playable cards (everyone passes in turn)".
    r = make_round(BASE, [M, S, M], [["map"], ["map"], ["map"]], pile=["cross"])
    r.play(pass_(0, "map"))
    assert r.seats[0].hand == ["cross"] and r.draw_pile == []
    r.play(pass_(1, "map"))
    r.play(pass_(2, "map"))
    assert not r.ended
    assert r.turn == 0 and r.board.check(Placement(1, 0, "cross")).legal


def test_the_next_round_starts_left_of_the_last_player_who_played_a_card():
    # The digest: "treat it as the last card played" (the engine's default next-starter=last-card);
    # a pass is a discard, not a card played.
    # seat 0 lays the last path card, seat 1 the last card (an action); then everyone passes
    hands = [["straight-ew", "map"], ["broken-cart", "map"], ["map"], ["map"]]
    game = rig_game(BASE, [M, S, M, M], hands)
    game.play(place(0, "straight-ew", 1, 0))
    game.play(Move(1, "break", "broken-cart", target=3))
    for seat in [2, 3, 0, 1]:
        game.play(pass_(seat, "map"))
    assert game.round.ended and game.round.last_player == 1
    assert game.settled
    assert game.next_first == 2
    r2 = game.start_round(random.Random(5))
    assert r2.first == 2 and r2.turn == 2


def test_the_next_round_after_the_last_path_card_with_the_option():
    rules = Rules.parse("saboteur", "next-starter=last-path-card")
    hands = [["straight-ew", "map"], ["broken-cart", "map"], ["map"], ["map"]]
    game = rig_game(rules, [M, S, M, M], hands)
    game.play(place(0, "straight-ew", 1, 0))
    game.play(Move(1, "break", "broken-cart", target=3))
    for seat in [2, 3, 0, 1]:
        game.play(pass_(seat, "map"))
    assert game.next_first == 1
    assert game.start_round(random.Random(5)).turn == 1


def test_the_next_round_after_a_gold_finish_starts_left_of_the_finisher():
    game = rig_game(BASE, [M, S, M, M], [["map"], ["map"], ["map"], ["straight-ew"]], pile=["map"] * 9,
                    cards=NEAR_GOLD, first=3)
    game.play(place(3, "straight-ew", 7, 0))
    settle(game)
    assert game.next_first == 0


# ----------------------------------------------------------------- the game: draft, thefts, ranking


def test_base_draft_through_pick_gold():
    game = rig_game(BASE, [M, M, S, M], [["straight-ew"], ["map"], ["map"], ["map"]], pile=["map"] * 9,
                    cards=NEAR_GOLD)
    deck_before = list(game.gold_deck)
    events = game.play(place(0, "straight-ew", 7, 0))
    draft = game.draft
    assert isinstance(draft, Draft)
    assert draft.order == [0, 3, 1]  # counter-clockwise from the finisher, saboteur skipped
    assert len(draft.cards) == 4  # classic: one card per player
    assert draft.cards == list(reversed(deck_before[-4:]))
    assert game.gold_deck == deck_before[:-4]
    assert any(e.kind == "draft" and e.data["order"] == [0, 3, 1] for e in events)
    assert not game.settled
    with pytest.raises(MoveError, match="it is seat 0's pick, not seat 3's"):
        game.pick_gold(3, 0)
    with pytest.raises(MoveError, match="there is no gold card number 4"):
        game.pick_gold(0, 4)
    picked = []
    for seat in [0, 3, 1, 0]:
        assert game.draft.picker == seat
        value = game.draft.cards[0]
        ev = game.pick_gold(seat, 0)
        assert ev[0].private_to == seat and ev[0].data == {"cards": [value]}
        picked.append((seat, value))
    assert game.draft is None and game.settled
    assert game.gold[0] == [picked[0][1], picked[3][1]]
    assert game.gold[3] == [picked[1][1]] and game.gold[1] == [picked[2][1]] and game.gold[2] == []
    assert game.results[0]["side"] == "miners" and game.results[0]["winners"] == [0, 1, 3]
    assert game.results[0]["finisher"] == 0 and game.results[0]["gold_reached"]
    with pytest.raises(MoveError, match="no gold is being shared out"):
        game.pick_gold(0, 0)


def test_base_saboteurs_paid_from_the_gold_deck_by_exact_change():
    game = rig_game(BASE, [S, M, S, M, M], [["map"]] * 5)
    game.gold_deck = [3, 3, 2, 1, 1, 1]
    for seat in range(5):
        game.play(pass_(seat, "map"))
    assert game.round.ended and game.settled
    assert sorted(game.gold[0]) == [3] and sorted(game.gold[2]) == [3]  # 2 saboteurs: 3 each
    assert sorted(game.gold_deck) == [1, 1, 1, 2]
    assert game.results[0]["side"] == "saboteurs" and game.results[0]["winners"] == [0, 2]


def s2_theft_game(trap_seat0=False):
    """Saboteurs 0 and 1, a blue digger 2 and the profiteer 3. Seats 0 and 2 lay theft cards
    (seat 0 first); nobody reaches the gold. Optionally seat 0 is trapped by seat 1."""
    hands = [["theft", "map"], ["trapped" if trap_seat0 else "map", "map"], ["theft", "map"], ["map", "map"]]
    game = rig_game(S2, [S, S, BLUE, PROF], hands)
    game.play(Move(0, "theft", "theft"))
    game.play(Move(1, "trap", "trapped", target=0) if trap_seat0 else pass_(1, "map"))
    game.play(Move(2, "theft", "theft"))
    for seat in [3, 0, 1, 2, 3]:
        if not game.round.ended:
            game.play(pass_(seat, *game.round.seats[seat].hand[:1]))
    assert game.round.ended and game.round.end_reason == "exhausted"
    return game


def test_saboteur2_thefts_through_steal():
    game = s2_theft_game()
    # saboteurs 0, 1 and the profiteer win: 3 winners -> 3 each, the profiteer 1
    assert game.gold == [[3], [3], [], [1]]
    assert game.thefts == [2, 0]  # the last to lay a theft card steals first, then clockwise
    assert not game.settled and game.results == []
    with pytest.raises(MoveError, match="seat 2 steals first"):
        game.steal(0, 1)
    with pytest.raises(MoveError, match="steal from another player who has gold"):
        game.steal(2, 2)
    game.steal(2, 0)
    assert game.gold[0] == [3, -1] and game.gold[2] == [1]
    with pytest.raises(MoveError, match="steal from another player who has gold"):
        game.steal(0, 9)
    game.steal(0, 3)
    assert game.gold[3] == [1, -1] and game.gold[0] == [3, -1, 1]
    assert game.totals() == [3, 3, 1, 0]
    assert game.settled and len(game.results) == 1
    assert game.results[0]["winners"] == [0, 1, 3]
    with pytest.raises(MoveError, match="nobody is stealing now"):
        game.steal(0, 1)


def test_saboteur2_trapped_players_get_no_gold_and_do_not_steal():
    game = s2_theft_game(trap_seat0=True)
    # seat 0 trapped: winners are saboteur 1 and the profiteer: 4 each, the profiteer 2
    assert game.gold == [[], [4], [], [2]]
    assert game.thefts == [2]
    game.skip_theft(2)
    assert game.settled and game.totals() == [0, 4, 0, 2]


def test_skip_theft_only_for_the_thief_whose_turn_it_is():
    game = s2_theft_game()
    with pytest.raises(MoveError, match="it is not this seat's theft"):
        game.skip_theft(0)
    game.skip_theft(2)
    assert game.thefts == [0]


def test_three_rounds_then_game_over_and_ranking():
    game = Game(BASE, ["ann", "bob", "cy", "di"])
    rng = random.Random(11)
    with pytest.raises(MoveError, match="no round has started"):
        game.play(pass_(0, "map"))
    game.start_round(rng)
    with pytest.raises(MoveError, match="not finished and paid out yet"):
        game.start_round(rng)
    last_events = []
    for number in range(1, 4):
        if number > 1:
            game.start_round(rng)
        assert game.round_number == number
        r = game.round
        while not r.ended:
            last_events = game.play(choose_move(r, rng), rng)
        settle(game)
        assert len(game.results) == number
        assert game.over == (number == 3)
    assert game.over
    with pytest.raises(MoveError, match="the game is over after three rounds"):
        game.start_round(rng)
    ranking = game.ranking()
    totals = game.totals()
    assert [row["gold"] for row in ranking] == sorted(totals, reverse=True)
    assert {row["seat"] for row in ranking} == {0, 1, 2, 3}
    assert all(row["name"] == game.names[row["seat"]] for row in ranking)
    for a, b in zip(ranking, ranking[1:]):
        assert (a["rank"] == b["rank"]) == (a["gold"] == b["gold"])
    assert ranking[0]["rank"] == 1


def test_game_over_event_carries_the_ranking():
    game = Game(BASE, ["p0", "p1", "p2"])
    rng = random.Random(4)
    for _ in range(2):
        game.start_round(rng)
        play_round(game, rng)
    before = game.totals()
    game.start_round(rng)
    game.round = make_round(BASE, [S, M, M], [["map"]] * 3, first=game.round.first)
    first = game.round.turn
    events = []
    for i in range(3):
        assert not game.over
        events = game.play(pass_((first + i) % 3, "map"))
    assert [e.kind for e in events][-2:] == ["round-scored", "game-over"]
    assert game.over
    assert game.totals() == [before[0] + 4, before[1], before[2]]  # a lone saboteur gets 4
    assert events[-1].data["ranking"] == game.ranking()
    assert game.results[-1]["side"] == "saboteurs"


def test_saboteur2_round_scored_from_the_maze_doors_and_crystals():
    # blue digger 0 completes a tunnel through a blue door past one crystal; the boss wins with
    # blue (2 winners: 4, the boss 1 less); the geologist takes the crystal; green gets nothing.
    cards = [(1, 0, "straight-ew", 0), (2, 0, "door-blue-ew", 0), (3, 0, "straight-ew", 0),
             (4, 0, "crystal-t-esw", 0), (5, 0, "straight-ew", 0), (6, 0, "straight-ew", 0)]
    game = rig_game(S2, [BLUE, GREEN, BOSS, GEO], [["straight-ew"], ["map"], ["map"], ["map"]],
                    pile=["map"] * 5, cards=cards)
    events = game.play(place(0, "straight-ew", 7, 0))
    assert game.round.end_reason == "gold" and game.round.finisher == 0
    assert game.gold == [[4], [], [3], [1]]
    assert game.results[0]["winners"] == [0, 2] and game.results[0]["finisher"] == 0
    gold_events = [e for e in events if e.kind == "gold"]
    assert {e.private_to: e.data["amount"] for e in gold_events} == {0: 4, 2: 3, 3: 1}
    assert game.settled


def test_saboteur2_green_finisher_through_a_blue_door_blue_still_wins():
    cards = [(1, 0, "door-blue-ew", 0)] + row(0, range(2, 7))
    game = rig_game(S2, [GREEN, BLUE, PROF, S], [["straight-ew"], ["map"], ["map"], ["map"]],
                    pile=["map"] * 5, cards=cards)
    game.play(place(0, "straight-ew", 7, 0))
    assert game.results[0]["winners"] == [1, 2]  # blue and the profiteer: 4 each, the profiteer 2 less
    assert game.gold == [[], [4], [2], []]


def test_every_legal_move_is_accepted():
    rng = random.Random(17)
    for rules, players in ((BASE, 5), (S2, 6)):
        game = Game(rules, [f"p{i}" for i in range(players)])
        game.start_round(rng)
        r = game.round
        tried = Counter()
        for step in range(60):
            if r.ended:
                break
            if step % 6 == 0:
                for move in r.legal_moves():
                    copy = Round.from_json(json.loads(json.dumps(r.to_json())))
                    copy.play(move, random.Random(0))  # must not raise
                    tried[move.kind] += 1
            game.play(choose_move(r, rng), rng)
        assert tried["place"] > 0 and tried["pass"] > 0


# ----------------------------------------------------------------- table mode


def test_table_mode_round_holds_no_hands():
    r = Round.at_table(BASE, 5, random.Random(3))
    assert not r.tracked and r.draw_pile is None
    assert all(s.hand is None for s in r.seats)
    assert len(r.unused_roles) == 1 and len(r.roles) == 5
    r.play(place(2, "straight-ew", 1, 0))  # no hand is checked
    assert r.board.at((1, 0)).face == "straight-ew"
    with pytest.raises(MoveError, match="the west edge is rock"):
        r.play(place(3, "straight-ns", 2, 0))
    assert not r.ended
    events = r.declare_exhausted()
    assert r.ended and r.end_reason == "exhausted" and events[0].kind == "round-end"
    with pytest.raises(MoveError, match="the round is over"):
        r.declare_exhausted()


def test_table_mode_goals_may_be_given():
    r = Round.at_table(BASE, 3, random.Random(3), goals=["goal-gold", "goal-stone-nw", "goal-stone-ne"])
    assert r.board.hidden_goals[(8, 2)] == "goal-gold"


def test_table_mode_game_scores_a_declared_exhaustion():
    game = Game(BASE, ["a", "b", "c", "d", "e"], tracked=False)
    game.start_round(random.Random(8))
    assert not game.round.tracked
    game.round.seats[0].role, game.round.seats[1].role = S, S
    for seat in range(2, 5):
        game.round.seats[seat].role = M
    game.play(place(4, "straight-ew", 1, 0))
    game.play(Move(1, "break", "broken-cart", target=0))
    events = game.end_round_exhausted()
    assert game.settled
    assert sum(game.gold[0]) == 3 and sum(game.gold[1]) == 3 and game.totals()[2:] == [0, 0, 0]
    gold_events = [e for e in events if e.kind == "gold"]
    assert sorted(e.private_to for e in gold_events) == [0, 1]
    assert game.next_first == 2
    assert game.start_round(random.Random(9)).turn == 2
    assert round_trip(game, Game).tracked is False


def test_table_mode_gold_reached_starts_a_draft():
    game = Game(BASE, ["a", "b", "c"], tracked=False)
    game.start_round(random.Random(1))
    game.round = Round.at_table(BASE, 3, random.Random(2), goals=GOALS)
    for seat in range(3):
        game.round.seats[seat].role = [M, S, M][seat]
    for x in range(1, 8):
        game.play(place(x % 3, "straight-ew", x, 0))  # any seat may report a card at the table
    assert game.round.end_reason == "gold" and game.round.finisher == 1  # the saboteur finished
    assert game.draft.order == [0, 2]  # from the first miner to the saboteur's right
    assert len(game.draft.cards) == 3


# ----------------------------------------------------------------- JSON


def test_round_json_round_trip_mid_round():
    r = make_round(S2, [S, BLUE, GREEN], [["theft", "map", "cross"], ["trapped", "map"], ["map", "map"]],
                   pile=["t-nes", "curve-ne", "map"], unused=[BOSS, GEO])
    r.play(Move(0, "theft", "theft"))
    r.play(Move(1, "trap", "trapped", target=0))
    r.play(Move(2, "map", "map", cell=(8, 2)))
    again = round_trip(r, Round)
    assert again.seats[0].theft == 0 and again.seats[0].trapped
    assert again.seats[2].peeks == [{"kind": "goal", "cell": [8, 2], "face": "goal-stone-nw"}]
    # both copies go on identically
    for copy in (r, again):
        copy.play(pass_(0, "map"))
    assert again.to_json() == r.to_json()


def play_and_check_json(game: Game, rng: random.Random, every: int = 7) -> int:
    """Play a whole game with computer players, round-tripping the JSON every few steps."""
    checks = 0
    step = 0
    while not game.over:
        game.start_round(rng)
        round_trip(game, Game)
        checks += 1
        r = game.round
        while not r.ended:
            game.play(choose_move(r, rng), rng)
            step += 1
            if step % every == 0:
                round_trip(game, Game)
                checks += 1
        round_trip(game, Game)  # a draft or thefts may be pending here
        checks += 1
        if game.draft is not None and game.draft.picks == []:
            game.pick_gold(game.draft.picker, 0)
            round_trip(game, Game)
        settle(game)
        round_trip(game, Game)
        checks += 2
    return checks


@pytest.mark.parametrize("rules,players,seed", [
    (BASE, 5, 1), (BASE, 10, 2), (Rules.parse("saboteur", "selfish-dwarf,broken-tools-forfeit"), 4, 3),
    (S2, 6, 4), (S2, 12, 5), (S2, 2, 6),
])
def test_game_json_round_trips_exactly_at_many_points(rules, players, seed):
    game = Game(rules, [f"p{i}" for i in range(players)])
    assert round_trip(game, Game).round is None
    checks = play_and_check_json(game, random.Random(seed))
    assert checks > 10
    final = round_trip(game, Game)
    assert final.over and final.ranking() == game.ranking()


def test_a_game_restored_from_json_plays_on_identically():
    game = Game(S2, [f"p{i}" for i in range(5)])
    rng = random.Random(21)
    game.start_round(rng)
    for _ in range(12):
        game.play(choose_move(game.round, rng), rng)
    copy = Game.from_json(json.loads(json.dumps(game.to_json())))
    state = rng.getstate()
    rng_a, rng_b = random.Random(), random.Random()
    rng_a.setstate(state)
    rng_b.setstate(state)
    for g, local in ((game, rng_a), (copy, rng_b)):
        while not g.round.ended:
            g.play(choose_move(g.round, local), local)
        settle(g)
    assert copy.to_json() == game.to_json()


def test_move_and_event_json():
    move = Move(2, "repair", "repair-pickaxe-cart", target=1, tool="cart")
    assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move
    move = Move(1, "place", "bridge", Placement(3, -1, "bridge", 180))
    assert Move.from_json(move.to_json()) == move
    move = Move(0, "rockfall", "rockfall", cell=(4, 2))
    assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move
    move = Move(0, "pass", discards=("map", "cross"))
    assert Move.from_json(move.to_json()) == move
    assert Event("peek", "x", 1, {"a": 1}, private_to=1).to_json() == {
        "kind": "peek", "text": "x", "seat": 1, "data": {"a": 1}, "private_to": 1}


# ----------------------------------------------------------------- simulated games

OPTIONS = ["", "gold-count=miners", "broken-tools-forfeit", "selfish-dwarf", "next-starter=last-path-card"]


def check_base_gold(game: Game) -> None:
    values = [v for g in game.gold for v in g]
    assert all(v in (1, 2, 3) for v in values)
    assert all(t >= 0 for t in game.totals())
    assert sum(game.totals()) <= 44
    # conservation: every gold card is either in a hand of gold or still in the deck
    assert Counter(values + game.gold_deck) == Counter({1: 16, 2: 8, 3: 4})


@pytest.mark.parametrize("option", OPTIONS, ids=[o or "plain" for o in OPTIONS])
@pytest.mark.parametrize("players", range(3, 11))
def test_simulated_base_games_complete(players, option):
    rules = Rules.parse("saboteur", option)
    for seed in (players, 100 + players):
        game = Game(rules, [f"p{i}" for i in range(players)])
        rng = random.Random(seed)
        while not game.over:
            game.start_round(rng)
            r = game.round
            while not r.ended:
                game.play(choose_move(r, rng), rng)
            settle(game)
            check_base_gold(game)
        assert game.round_number == 3 and len(game.results) == 3
        assert len(game.ranking()) == players


@pytest.mark.parametrize("players", range(2, 13))
def test_simulated_saboteur2_games_complete(players):
    for seed in (players, 200 + players):
        game = simulate_game(Game(S2, [f"p{i}" for i in range(players)]), random.Random(seed))
        assert game.over and game.round_number == 3 and len(game.results) == 3
        assert all(t >= 0 for t in game.totals())
        assert all(v != 0 for g in game.gold for v in g)
        assert game.gold_deck == []


@pytest.mark.parametrize("rules,players", [(BASE, 6), (S2, 7), (Rules.parse("saboteur", "selfish-dwarf"), 9)])
def test_same_seed_same_game(rules, players):
    a = simulate_game(Game(rules, [f"p{i}" for i in range(players)]), random.Random(99))
    b = simulate_game(Game(rules, [f"p{i}" for i in range(players)]), random.Random(99))
    c = simulate_game(Game(rules, [f"p{i}" for i in range(players)]), random.Random(98))
    assert json.dumps(a.to_json(), sort_keys=True) == json.dumps(b.to_json(), sort_keys=True)
    assert a.to_json() != c.to_json()
