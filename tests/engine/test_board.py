"""The maze: the placement legality check, connectivity, goals, rockfalls, formats, door routes."""

from __future__ import annotations

import json

import pytest

from engine.board import Board, BoardError, IllegalPlacement, Placement, Reason
from engine.catalogue import CatalogueError, edges_mask
from engine.drawing import draw_board

# Secrets of the goals at (8,2), (8,0), (8,-2): the gold in the middle.
GOALS = ["goal-stone-nw", "goal-gold", "goal-stone-ne"]
NOT_CONNECTED = "no tunnel of this card meets a tunnel that leads back to the start"


def m(letters: str) -> int:
    return edges_mask(letters)


def maze(cards, goals=GOALS) -> Board:
    """The standard layout plus cards laid as they are (not judged), in order: (x, y, face, rotation)."""
    board = Board.standard(goals)
    for x, y, face, rotation in cards:
        board.put(Placement(x, y, face, rotation))
    return board


def free_maze(cards) -> Board:
    """A start at (0,0) and the cards given (goals face up where listed), no standard goals."""
    board = Board()
    board.put(Placement(0, 0, "start"))
    for x, y, face, rotation in cards:
        board.put(Placement(x, y, face, rotation))
    return board


def codes(verdict) -> list[str]:
    return [r.code for r in verdict.reasons]


def row(y: int, xs, face="straight-ew"):
    return [(x, y, face, 0) for x in xs]


# A tunnel from the start to (6,2), whose east edge is open next to (7,2), west of the goal (8,2):
# (1..5,0) straight, (6,0) turns north, (6,1) straight up, (6,2) turns east.
TO_7_2 = row(0, range(1, 6)) + [(6, 0, "curve-nw", 0), (6, 1, "straight-ns", 0), (6, 2, "curve-nw", 180)]
# A tunnel along y=1 from the start: (0,1) turns east, then straights to (7,1) next to (8,1).
ROW_Y1 = [(0, 1, "curve-nw", 180)] + row(1, range(1, 8))
# A tunnel along y=-1: (0,-1) turns east, then straights to (7,-1).
ROW_YM1 = [(0, -1, "curve-ne", 0)] + row(-1, range(1, 8))


# ----------------------------------------------------------------- legality, condition by condition


def test_first_card_east_of_start_is_legal_in_both_rotations():
    board = Board.standard(GOALS)
    for rotation in (0, 180):
        v = board.check(Placement(1, 0, "straight-ew", rotation))
        assert v.legal and v.reasons == () and v.reveals == () and not v.gold_reached


def test_occupied_start_cell():
    board = maze(row(0, [1]))
    v = board.check(Placement(0, 0, "cross"))
    assert codes(v) == ["occupied"]
    assert v.reasons[0] == Reason("occupied", "(0,0) already holds the start card", (0, 0))


def face_down_goals():
    return Board.standard(GOALS)


def gold_turned_over():
    board = maze(row(0, range(1, 8)))  # reaches (8,0): the gold turns over
    assert board.at((8, 0)).face == "goal-gold"
    return board


@pytest.mark.parametrize("board_of,cell", [(face_down_goals, (8, 2)), (face_down_goals, (8, 0)),
                                           (face_down_goals, (8, -2)), (gold_turned_over, (8, 0))])
def test_occupied_goal_cell_face_down_or_turned_over(board_of, cell):
    v = board_of().check(Placement(cell[0], cell[1], "cross"))
    assert not v.legal
    assert v.reasons[0] == Reason("occupied", f"({cell[0]},{cell[1]}) already holds a goal card", cell)


def test_occupied_by_a_path_card_names_it():
    board = maze(row(0, [1]))
    v = board.check(Placement(1, 0, "cross"))
    assert v.reasons == (Reason("occupied", "(1,0) already holds a card (straight-ew)", (1, 0)),)


@pytest.mark.parametrize("cell", [(5, 5), (1, 1), (-1, -1), (2, 0)])
def test_not_adjacent_to_any_card(cell):
    board = Board.standard(GOALS)
    v = board.check(Placement(cell[0], cell[1], "cross"))
    assert v.reasons == (Reason("not-adjacent", f"({cell[0]},{cell[1]}) does not touch any card of the maze"),)


@pytest.mark.parametrize("rotation", [90, 270])
def test_crosswise_rotation_is_illegal(rotation):
    board = Board.standard(GOALS)
    v = board.check(Placement(1, 0, "cross", rotation))
    assert v.reasons == (Reason("crosswise", "the card is laid crosswise; a path card lies upright or turned 180°"),)
    assert {p.rotation for p in board.legal_placements("cross")} == {0, 180}
    with pytest.raises(IllegalPlacement):
        board.place(Placement(1, 0, "cross", rotation))
    with pytest.raises(BoardError, match="upright or turned 180"):
        board.put(Placement(1, 0, "cross", rotation))


def test_crosswise_and_not_adjacent_are_both_reported():
    # The digest: "the engine reports every failed condition". A crosswise card on a cell that touches
    # nothing fails conditions 2 and 3 at once.
    board = Board.standard(GOALS)
    v = board.check(Placement(5, 5, "cross", 90))
    assert {"not-adjacent", "crosswise"} <= set(codes(v))


@pytest.mark.parametrize("cell,face,words", [
    ((1, 0), "straight-ns", "the west edge is rock but the card at (0,0) has a tunnel there"),
    ((0, 1), "straight-ew", "the south edge is rock but the card at (0,0) has a tunnel there"),
    ((-1, 0), "straight-ns", "the east edge is rock but the card at (0,0) has a tunnel there"),
    ((0, -1), "straight-ew", "the north edge is rock but the card at (0,0) has a tunnel there"),
])
def test_rock_against_an_open_edge_names_neighbour_and_edge(cell, face, words):
    board = Board.standard(GOALS)
    v = board.check(Placement(cell[0], cell[1], face))
    assert codes(v) == ["edge-mismatch", "not-connected"]
    edge = words.split()[1][0].upper()
    assert v.reasons[0] == Reason("edge-mismatch", words, (0, 0), edge)


@pytest.mark.parametrize("side,rock_card,words", [
    ((1, 0), "straight-ns", "the east edge is a tunnel but the card at (6,5) has rock there"),
    ((-1, 0), "straight-ns", "the west edge is a tunnel but the card at (4,5) has rock there"),
    ((0, 1), "straight-ew", "the north edge is a tunnel but the card at (5,6) has rock there"),
    ((0, -1), "straight-ew", "the south edge is a tunnel but the card at (5,4) has rock there"),
])
def test_open_edge_against_rock_names_neighbour_and_edge(side, rock_card, words):
    board = Board.standard(GOALS)
    neighbour = (5 + side[0], 5 + side[1])
    board.put(Placement(neighbour[0], neighbour[1], rock_card))
    v = board.check(Placement(5, 5, "cross"))
    assert v.reasons == (Reason("edge-mismatch", words, neighbour, words.split()[1][0].upper()),
                         Reason("not-connected", NOT_CONNECTED))


def test_digest_style_mismatch_message_east_edge_at_4_1():
    # (0,1) turns east, (1,1) (2,1) straight; a N-S straight (rock W) lies at (4,1).
    board = maze([(0, 1, "curve-nw", 180), (1, 1, "straight-ew", 0), (2, 1, "straight-ew", 0),
                  (4, 1, "straight-ns", 0)])
    v = board.check(Placement(3, 1, "cross"))
    assert [r.message for r in v.reasons] == ["the east edge is a tunnel but the card at (4,1) has rock there"]
    assert v.reasons[0].neighbour == (4, 1) and v.reasons[0].edge == "E"
    assert board.check(Placement(3, 1, "straight-ew")).reasons[0].message == \
        "the east edge is a tunnel but the card at (4,1) has rock there"
    assert board.check(Placement(3, 1, "curve-nw")).legal  # W open, E rock: agrees with both


def test_not_connected_beyond_a_dead_end():
    board = maze([(1, 0, "dead-ew", 0)])
    assert board.reachable_edges((1, 0)) == m("W")
    v = board.check(Placement(2, 0, "straight-ew"))
    assert v.reasons == (Reason("not-connected", NOT_CONNECTED),)
    assert board.legal_placements("straight-ew") == [Placement(-1, 0, "straight-ew", 0),
                                                     Placement(-1, 0, "straight-ew", 180)]


def test_not_connected_beside_a_stub_of_a_connected_card():
    # door-green-ns north of the start: its NS tunnel is reached, its east stub is not.
    board = maze([(0, 1, "door-green-ns", 0)])
    assert board.reachable_edges((0, 1)) == m("NS")
    v = board.check(Placement(1, 1, "straight-ew"))
    assert v.reasons == (Reason("not-connected", NOT_CONNECTED),)
    # above it the NS tunnel conducts
    assert board.check(Placement(0, 2, "straight-ns")).legal


def test_not_connected_to_a_card_cut_off_from_the_start():
    board = maze([(3, 0, "cross", 0)])  # laid physically, touches nothing reached
    assert board.reachable_edges((3, 0)) == 0
    assert codes(board.check(Placement(4, 0, "straight-ew"))) == ["not-connected"]
    assert codes(board.check(Placement(3, 1, "straight-ns"))) == ["not-connected"]


def test_a_dead_end_is_legal_when_a_stub_meets_a_reached_tunnel():
    board = Board.standard(GOALS)
    v = board.check(Placement(1, 0, "dead-e", 180))  # a single stub facing west
    assert v.legal
    board.place(Placement(1, 0, "dead-e", 180))
    assert board.reachable_edges((1, 0)) == m("W")
    # the stub upright faces east, away from the start: rock meets the start's tunnel
    assert codes(Board.standard(GOALS).check(Placement(1, 0, "dead-e", 0))) == ["edge-mismatch", "not-connected"]


@pytest.mark.parametrize("tools", [["pickaxe"], ["lantern"], ["cart"], ["pickaxe", "lantern", "cart"]])
def test_a_broken_tool_forbids_path_cards(tools):
    board = Board.standard(GOALS)
    p = Placement(1, 0, "straight-ew")
    v = board.check(p, broken_tools=tools)
    assert v.reasons == tuple(Reason("broken-tool", f"the player has a broken {t} in front of them") for t in tools)
    assert board.legal_placements("straight-ew", broken_tools=tools) == []
    assert not board.is_legal(p, broken_tools=tools)
    with pytest.raises(IllegalPlacement) as info:
        board.place(p, broken_tools=tools)
    assert not info.value.verdict.legal
    assert (1, 0) not in board


def test_a_trapped_player_may_not_lay_path_cards():
    board = Board.standard(GOALS)
    p = Placement(1, 0, "straight-ew")
    v = board.check(p, trapped=True)
    assert v.reasons == (Reason("trapped", "the player is trapped and may not lay path cards"),)
    assert board.legal_placements("straight-ew", trapped=True) == []
    with pytest.raises(IllegalPlacement):
        board.place(p, trapped=True)


@pytest.mark.parametrize("board_of,ladder,plain,goal", [
    # a ladder with its stub west meets (6,2)'s open east edge, but (8,2) is a goal next door;
    # an ordinary dead end there is fine (and its stub does not turn the goal over)
    (lambda: maze(TO_7_2), Placement(7, 2, "ladder-e", 180), Placement(7, 2, "dead-e", 180), (8, 2)),
    # east of the gold, turned over, a ladder's west stub meets the gold's open east edge
    (gold_turned_over, Placement(9, 0, "ladder-e", 180), Placement(9, 0, "straight-ew", 0), (8, 0)),
], ids=["face-down", "turned-over"])
def test_ladder_next_to_a_goal_is_illegal(board_of, ladder, plain, goal):
    board = board_of()
    v = board.check(ladder)
    assert v.reasons == (Reason("ladder-next-to-goal",
                                f"a ladder card may not lie next to the goal card at ({goal[0]},{goal[1]})", goal),)
    assert board.check(plain).legal


def test_ladder_must_touch_an_open_edge():
    board = maze([(0, 1, "straight-ns", 0)])
    # ladder-s at (1,1): its rock west meets the straight's rock east; its stub south faces nothing
    v = board.check(Placement(1, 1, "ladder-s", 0))
    assert v.reasons == (Reason("ladder-not-touching-path",
                                "a ladder card must meet an open edge of a card already in the maze"),)


def test_ladder_edges_must_still_agree():
    board = Board.standard(GOALS)
    v = board.check(Placement(1, 0, "ladder-e", 0))  # rock west against the start's tunnel
    assert codes(v) == ["edge-mismatch", "ladder-not-touching-path"]
    assert v.reasons[0].neighbour == (0, 0)


@pytest.mark.parametrize("face", ["start", "goal-gold", "goal-stone-nw", "goal-stone-ne", "goal-back"])
def test_start_and_goal_cards_cannot_be_played(face):
    board = Board.standard(GOALS)
    v = board.check(Placement(1, 0, face))
    assert v.reasons[0] == Reason("not-a-path-card", f"{face} is laid at set-up, never played")
    assert not v.legal
    assert board.legal_placements(face) == []


def test_check_reports_every_failed_condition_at_once():
    board = maze([(1, 0, "dead-ew", 0), (0, 1, "straight-ns", 0)])
    v = board.check(Placement(1, 1, "cross"), broken_tools=["pickaxe", "cart"], trapped=True)
    assert [r.message for r in v.reasons] == [
        "the player has a broken pickaxe in front of them",
        "the player has a broken cart in front of them",
        "the player is trapped and may not lay path cards",
        "the south edge is a tunnel but the card at (1,0) has rock there",
        "the west edge is a tunnel but the card at (0,1) has rock there",
        NOT_CONNECTED,
    ]
    assert [(r.neighbour, r.edge) for r in v.reasons if r.code == "edge-mismatch"] == [((1, 0), "S"), ((0, 1), "W")]
    assert str(v).startswith("cross at (1,1): illegal: the player has a broken pickaxe")
    assert v.to_dict()["legal"] is False and len(v.to_dict()["reasons"]) == 6


def test_occupied_with_mismatch_and_not_connected_reported_together():
    board = maze(row(0, [1]))
    v = board.check(Placement(1, 0, "straight-ns"))
    assert codes(v) == ["occupied", "edge-mismatch", "not-connected"]


def test_is_legal_agrees_with_check():
    board = maze([(1, 0, "dead-ew", 0), (0, 1, "straight-ns", 0)])
    for p in [Placement(1, 1, "cross"), Placement(0, 2, "straight-ns"), Placement(-1, 0, "cross"),
              Placement(2, 0, "cross"), Placement(0, -1, "dead-n", 0)]:
        assert board.is_legal(p) == board.check(p).legal


# ----------------------------------------------------------------- goals


def test_face_down_goals_constrain_nothing():
    board = maze(TO_7_2)
    rock_east = board.check(Placement(7, 2, "curve-ne", 180))  # SW: rock against the goal
    open_east = board.check(Placement(7, 2, "straight-ew", 0))  # tunnel against the goal
    assert rock_east.legal and rock_east.reveals == ()
    assert open_east.legal and open_east.reveals == ((8, 2),)


def test_face_down_goals_do_not_conduct():
    board = maze(row(0, range(1, 7)))
    board.put(Placement(7, 0, "dead-ew", 0))  # a stub against the gold: nothing turns over
    assert board.hidden_goals[(8, 0)] == "goal-gold"
    # a card beyond the face-down goal touches only the goal
    v = board.check(Placement(9, 0, "straight-ew"))
    assert v.reasons == (Reason("not-connected", NOT_CONNECTED),)


def test_stubs_never_turn_a_goal_over():
    board = maze(TO_7_2)
    v = board.check(Placement(7, 2, "dead-ew", 0))
    assert v.legal and v.reveals == () and not v.gold_reached
    board.place(Placement(7, 2, "dead-ew", 0))
    assert board.reachable_edges((7, 2)) == m("W")
    assert board.is_hidden_goal((8, 2)) and board.goals_touched() == []
    assert board.at((8, 2)).face == "goal-back"


def test_a_stub_touching_the_gold_does_not_reach_it():
    board = maze(row(0, range(1, 7)))
    v = board.check(Placement(7, 0, "dead-ew", 0))
    assert v.legal and v.reveals == () and v.gold_reached is False
    board.place(Placement(7, 0, "dead-ew", 0))
    assert not board.gold_reached


def test_stone_goal_reached_from_the_west_stays_upright():
    board = maze(TO_7_2)
    v = board.place(Placement(7, 2, "straight-ew", 0))
    assert v.reveals == ((8, 2),) and not v.gold_reached
    assert board.at((8, 2)) == Placement(8, 2, "goal-stone-nw", 0)  # NW opens west
    assert board.reachable_edges((8, 2)) == m("NW")
    assert not board.is_hidden_goal((8, 2))
    # it conducts: a card north of it is connected; its rock south is not a passage
    assert board.check(Placement(8, 3, "straight-ns")).legal
    v = board.check(Placement(8, 1, "straight-ns"))
    assert "the north edge is a tunnel but the card at (8,2) has rock there" in [r.message for r in v.reasons]


def test_stone_goal_reached_from_the_south_is_turned_to_open_south_and_conducts():
    board = maze(ROW_Y1)
    v = board.check(Placement(8, 1, "curve-nw", 0))  # W and N: reaches (8,2) from the south
    assert v.legal and v.reveals == ((8, 2),)
    board.place(Placement(8, 1, "curve-nw", 0))
    assert board.at((8, 2)) == Placement(8, 2, "goal-stone-nw", 180)  # SE: opens south
    assert board.reachable_edges((8, 2)) == m("ES")
    assert board.is_hidden_goal((8, 0))  # the curve's rock south does not touch the gold
    v = board.check(Placement(9, 2, "straight-ew"))
    assert v.legal  # connected through the turned-over stone


def test_other_stone_reached_from_the_west_is_turned_and_from_the_north_upright():
    west = maze(row(0, range(1, 6)) + [(6, 0, "curve-ne", 180), (6, -1, "straight-ns", 0), (6, -2, "curve-ne", 0)])
    west.place(Placement(7, -2, "straight-ew", 0))
    assert west.at((8, -2)) == Placement(8, -2, "goal-stone-ne", 180)  # SW opens west
    assert west.reachable_edges((8, -2)) == m("SW")

    north = maze(ROW_YM1)
    v = north.place(Placement(8, -1, "curve-ne", 180))  # SW: from the west, down into (8,-2)
    assert v.reveals == ((8, -2),)
    assert north.at((8, -2)) == Placement(8, -2, "goal-stone-ne", 0)  # NE opens north
    assert north.reachable_edges((8, -2)) == m("NE")
    assert north.check(Placement(9, -2, "straight-ew")).legal


def test_goal_mismatch_with_other_neighbours_is_tolerated():
    # the stone at (8,0) is reached from the north; a cut-off straight west of it has an open east edge
    secrets = ["goal-gold", "goal-stone-ne", "goal-stone-nw"]
    board = maze(ROW_Y1 + [(7, 0, "straight-ew", 0)], goals=secrets)
    assert board.reachable_edges((7, 0)) == 0
    v = board.place(Placement(8, 1, "curve-ne", 180))  # W and S: reaches (8,0) from the north
    assert v.reveals == ((8, 0),) and not v.gold_reached
    assert board.at((8, 0)) == Placement(8, 0, "goal-stone-ne", 0)  # NE opens north, rock toward (7,0)
    assert board.reachable_edges((8, 0)) == m("NE")
    assert board.reachable_edges((7, 0)) == 0  # the goal's rock west is no passage
    assert board.check(Placement(9, 0, "straight-ew")).legal


def test_one_placement_can_turn_over_two_goals_and_find_the_gold():
    board = maze(ROW_Y1)
    v = board.check(Placement(8, 1, "cross"))
    assert v.legal and v.reveals == ((8, 0), (8, 2)) and v.gold_reached
    assert str(v) == "cross at (8,1): legal; turns over the goals at (8,0), (8,2); the gold is reached"
    assert not board.gold_reached  # check changes nothing
    assert board.is_hidden_goal((8, 0)) and board.is_hidden_goal((8, 2))
    board.place(Placement(8, 1, "cross"))
    assert board.gold_reached
    assert board.at((8, 0)).face == "goal-gold" and board.at((8, 2)) == Placement(8, 2, "goal-stone-nw", 180)
    assert board.hidden_goals == {(8, -2): "goal-stone-ne"}


def test_gold_reached_straight_down_the_middle():
    board = maze(row(0, range(1, 7)))
    v = board.check(Placement(7, 0, "straight-ew"))
    assert v.reveals == ((8, 0),) and v.gold_reached
    assert v.to_dict() == {"legal": True, "reasons": [], "reveals": [[8, 0]], "gold_reached": True}
    assert not board.gold_reached
    board.place(Placement(7, 0, "straight-ew"))
    assert board.gold_reached
    assert board.reachable_edges((8, 0)) == m("NESW")


def test_reaching_a_stone_is_not_the_gold():
    board = maze(TO_7_2)
    v = board.place(Placement(7, 2, "straight-ew", 0))
    assert not v.gold_reached and not board.gold_reached


def test_unknown_secrets_are_reported_and_revealed_by_the_camera():
    board = maze(row(0, range(1, 7)), goals=None)
    v = board.check(Placement(7, 0, "straight-ew"))
    assert v.reveals == ((8, 0),) and not v.gold_reached  # the board cannot know
    board.place(Placement(7, 0, "straight-ew"))
    assert board.goals_touched() == [(8, 0)]
    assert board.is_hidden_goal((8, 0))
    shown = board.reveal((8, 0), "goal-stone-ne")
    assert shown == Placement(8, 0, "goal-stone-ne", 180)  # opens west toward the tunnel
    assert board.reachable_edges((8, 0)) == m("SW")
    with pytest.raises(BoardError, match="no face-down goal at \\(8,0\\)"):
        board.reveal((8, 0), "goal-gold")
    with pytest.raises(BoardError, match="'cross' is not a goal card"):
        board.reveal((8, 2), "cross")


# ----------------------------------------------------------------- Saboteur 2 topology


def test_bridge_keeps_its_tunnels_apart():
    board = maze([(0, 1, "bridge", 0)])  # entered from the south: only NS conducts
    assert board.reachable_edges((0, 1)) == m("NS")
    assert codes(board.check(Placement(1, 1, "straight-ew"))) == ["not-connected"]
    assert codes(board.check(Placement(-1, 1, "straight-ew"))) == ["not-connected"]
    assert board.check(Placement(0, 2, "straight-ns")).legal

    east = maze([(1, 0, "bridge", 0)])  # entered from the west: only EW conducts
    assert east.reachable_edges((1, 0)) == m("EW")
    assert codes(east.check(Placement(1, 1, "straight-ns"))) == ["not-connected"]
    assert east.check(Placement(2, 0, "straight-ew")).legal


def test_double_curve_keeps_its_tunnels_apart():
    board = maze([(1, 0, "double-curve", 0)])  # NW and ES; entered from the west
    assert board.reachable_edges((1, 0)) == m("NW")
    assert codes(board.check(Placement(2, 0, "straight-ew"))) == ["not-connected"]
    assert codes(board.check(Placement(1, -1, "straight-ns"))) == ["not-connected"]
    assert board.check(Placement(1, 1, "straight-ns")).legal
    turned = maze([(1, 0, "double-curve", 180)])  # turned it is the same shape
    assert turned.reachable_edges((1, 0)) == m("NW")


def test_bridge_second_tunnel_joins_when_reached_later():
    # bridge at (1,0) entered from the west; a loop up and over reaches its north edge
    board = maze([(1, 0, "bridge", 0), (0, 1, "curve-nw", 180), (1, 1, "curve-ne", 180)])
    assert board.reachable_edges((1, 0)) == m("NESW")
    assert board.check(Placement(1, -1, "straight-ns")).legal


def test_a_ladder_far_away_makes_its_tunnel_reachable():
    board = maze([(5, 3, "straight-ew", 0)])  # a cut-off card
    assert board.reachable_edges((5, 3)) == 0
    v = board.check(Placement(4, 3, "ladder-e", 0))  # its stub east meets the cut-off card
    assert v.legal
    board.place(Placement(4, 3, "ladder-e", 0))
    assert board.reachable_edges((4, 3)) == m("E")
    assert board.reachable_edges((5, 3)) == m("EW")
    # now a card may connect to the start from the ladder's side
    assert board.check(Placement(6, 3, "straight-ew")).legal
    board.place(Placement(6, 3, "straight-ew"))
    assert board.reachable_edges((6, 3)) == m("EW")


def test_a_ladder_joins_the_start_by_itself():
    board = maze([(2, 2, "curve-nw", 180)])  # SE, cut off
    board.place(Placement(2, 1, "ladder-ne", 0))  # NE: north meets the curve's south
    assert board.reachable_edges((2, 1)) == m("NE")
    assert board.reachable_edges((2, 2)) == m("ES")
    assert board.check(Placement(3, 1, "straight-ew")).legal  # from the ladder's east
    assert board.check(Placement(3, 2, "straight-ew")).legal  # from the curve's east


def test_a_ladder_linking_a_detached_stretch_turns_the_goal_over():
    board = maze(row(0, range(4, 8)))  # (4..7,0) laid physically, cut off, touching the gold
    assert board.is_hidden_goal((8, 0))
    v = board.check(Placement(3, 0, "ladder-e", 0))  # not next to a goal itself
    assert v.legal and v.reveals == ((8, 0),) and v.gold_reached
    board.place(Placement(3, 0, "ladder-e", 0))
    assert board.gold_reached and board.reachable_edges((7, 0)) == m("EW")


def test_a_bridge_tunnel_linked_up_later_turns_the_goal_over_at_a_distance():
    # (7,1) sends a tunnel south into a bridge at (7,0): its NS tunnel is reached, its EW tunnel
    # (whose east edge touches the gold) is not, so nothing turns over yet.
    approach = ROW_Y1[:-1] + [(7, 1, "t-new", 180)]
    board = maze(approach)
    v = board.place(Placement(7, 0, "bridge", 0))
    assert v.reveals == () and board.reachable_edges((7, 0)) == m("NS")
    board = maze(approach + [(7, 0, "bridge", 0)] + row(0, range(1, 6)))
    assert board.is_hidden_goal((8, 0))
    # a straight at (6,0) touches no goal, but links the bridge's EW tunnel, which does
    v = board.check(Placement(6, 0, "straight-ew"))
    assert v.legal and v.reveals == ((8, 0),) and v.gold_reached
    board.place(Placement(6, 0, "straight-ew"))
    assert board.gold_reached and board.reachable_edges((7, 0)) == m("NESW")


# ----------------------------------------------------------------- rockfall


def stone_turned_over():
    board = maze(TO_7_2 + [(7, 2, "straight-ew", 0)])
    assert board.at((8, 2)).face == "goal-stone-nw"
    return board


@pytest.mark.parametrize("board_of,cell,words", [
    (lambda: maze(TO_7_2), (0, 0), "a rockfall cannot remove the start card at (0,0)"),
    (lambda: maze(TO_7_2), (8, 0), "a rockfall cannot remove a goal card at (8,0)"),
    (lambda: maze(TO_7_2), (8, 2), "a rockfall cannot remove a goal card at (8,2)"),
    (stone_turned_over, (8, 2), "a rockfall cannot remove a goal card at (8,2)"),
    (lambda: maze(TO_7_2), (3, 3), "there is no card at (3,3)"),
])
def test_rockfall_never_on_start_goals_face_down_or_turned_over_or_empty_cells(board_of, cell, words):
    board = board_of()
    before = board.to_json()
    with pytest.raises(BoardError) as info:
        board.remove(cell)
    assert str(info.value) == words
    assert board.to_json() == before


def test_rockfall_disconnects_what_hung_from_the_removed_card():
    board = maze(row(0, range(1, 5)))
    board.put(Placement(5, 0, "t-new", 0))
    board.put(Placement(5, 1, "straight-ns", 0))
    assert all(board.is_reachable((x, 0)) for x in range(1, 6)) and board.is_reachable((5, 1))
    removed = board.remove((2, 0))
    assert removed == Placement(2, 0, "straight-ew", 0)
    assert (2, 0) not in board
    assert board.reachable_edges((1, 0)) == m("EW")
    for cell in [(3, 0), (4, 0), (5, 0), (5, 1)]:
        assert board.reachable_edges(cell) == 0, cell
    assert codes(board.check(Placement(6, 0, "straight-ew"))) == ["not-connected"]
    # the hole may be filled again: everything hanging from it is reached again
    board.place(Placement(2, 0, "cross", 0))
    assert board.reachable_edges((5, 0)) == m("NEW") and board.reachable_edges((5, 1)) == m("NS")


def test_reconnecting_a_cut_off_region_reveals_the_goal_it_touches():
    board = maze(row(0, [1, 2]) + row(0, range(4, 8)))  # a gap at (3,0); (4..7,0) cut off
    assert board.is_hidden_goal((8, 0)) and board.goals_touched() == []
    assert board.reachable_edges((7, 0)) == 0
    v = board.check(Placement(3, 0, "straight-ew"))
    assert v.legal and v.reveals == ((8, 0),) and v.gold_reached
    board.place(Placement(3, 0, "straight-ew"))
    assert board.gold_reached
    assert all(board.reachable_edges((x, 0)) == m("EW") for x in range(1, 8))


def test_rockfall_then_refill_reveals_a_goal_reached_meanwhile():
    board = maze(row(0, range(1, 7)))
    board.remove((3, 0))
    board.put(Placement(7, 0, "straight-ew"))  # physically laid onto the cut-off stretch
    assert board.is_hidden_goal((8, 0))
    verdict = board.place(Placement(3, 0, "straight-ew"))
    assert verdict.reveals == ((8, 0),) and board.gold_reached


def test_rockfall_keeps_a_turned_over_goal_face_up_but_no_longer_reached():
    board = maze(TO_7_2 + [(7, 2, "straight-ew", 0)])
    board.remove((7, 2))
    assert board.at((8, 2)) == Placement(8, 2, "goal-stone-nw", 0)
    assert board.reachable_edges((8, 2)) == 0
    assert board.crystals() == 0


# ----------------------------------------------------------------- formats


def test_board_json_round_trip_is_exact():
    board = maze(TO_7_2 + [(7, 2, "straight-ew", 0), (0, 1, "bridge", 0), (0, -1, "door-green-ns", 180),
                           (-1, 0, "crystal-t-nsw-e", 180), (5, 3, "dead-n", 0)])
    board.put(Placement(4, 3, "ladder-e", 0))
    doc = board.to_json()
    assert doc["hidden_goals"] == [{"x": 8, "y": -2, "face": "goal-stone-ne"}, {"x": 8, "y": 0, "face": "goal-gold"}]
    assert {"x": 8, "y": 2, "face": "goal-stone-nw", "rotation": 0} in doc["board"]
    assert {"x": 8, "y": 0, "face": "goal-back", "rotation": 0} in doc["board"]
    text = json.dumps(doc)
    again = Board.from_json(json.loads(text))
    assert again.to_json() == doc
    for cell in list(board.frontier()) + [p.cell for p in board.placements()]:
        assert again.reachable_edges(cell) == board.reachable_edges(cell), cell
    assert again.hidden_goals == board.hidden_goals
    assert again.crystals() == board.crystals() == 1


def test_board_from_json_rejects_bad_entries():
    base = Board.standard(GOALS).to_json()
    crooked = dict(base, board=base["board"] + [{"x": 1, "y": 0, "face": "cross", "rotation": 90}])
    with pytest.raises(CatalogueError, match="rotation must be 0 or 180, got 90"):
        Board.from_json(crooked)
    twice = dict(base, board=base["board"] + [{"x": 1, "y": 0, "face": "cross", "rotation": 0}] * 2)
    with pytest.raises(BoardError, match="listed twice"):
        Board.from_json(twice)
    with pytest.raises(CatalogueError, match="field 'x' must be an integer"):
        Board.from_json(dict(base, board=[{"x": "1", "y": 0, "face": "cross"}]))
    with pytest.raises(CatalogueError, match="unknown card id 'nope'"):
        Board.from_json(dict(base, board=[{"x": 1, "y": 0, "face": "nope"}]))


def test_ascii_drawing_of_a_tiny_maze_is_exact():
    board = free_maze([(1, 0, "straight-ew", 0), (0, 1, "dead-ns", 0)])
    board.add_hidden_goal((2, 0), None)
    expected = "\n".join([
        "        0    1    2  ",
        "        :",
        "   1    x    .    .",
        "        :",
        "        |       +---+",
        "   0  --S----+--| ? |",
        "        |       +---+",
    ])
    assert draw_board(board) == expected
    assert str(board) == expected


def test_ascii_drawing_of_saboteur2_glyphs():
    board = free_maze([(1, 0, "door-blue-ew", 0), (2, 0, "goal-gold", 0), (0, 1, "bridge", 0),
                       (0, -1, "ladder-ne", 180), (-1, 0, "crystal-ew-s", 0), (1, 1, "goal-stone-nw", 0)])
    expected = "\n".join([
        "       -1    0    1    2  ",
        "             |    |",
        "   1    .  --#----o    .",
        "             |",
        "             |         |",
        "   0  --*----S----b----G--",
        "        :    |         |",
        "",
        "  -1    .  --H    .    .",
        "             |",
    ])
    assert draw_board(board) == expected
    assert draw_board(board, legend=True) == expected + "\n" + (
        "S start  ? face-down goal  G gold  o stone  H ladder  b/g blue/green door  * crystal  "
        "# separate tunnels  x dead end  + tunnel;  | - tunnel edge  : . stub")


def test_ascii_drawing_marks_the_cells_not_read_surely_and_takes_them_in():
    # a camera's uncertain cells (a hand over them) must not look like bare table, even
    # beyond the cards read
    board = free_maze([(1, 0, "straight-ew", 0)])
    expected = "\n".join([
        "        0    1    2  ",
        "",
        "   1    .    .   ~~~",
        "",
        "        |",
        "   0  --S----+--  .",
        "        |",
    ])
    assert draw_board(board, unread=[(2, 1)]) == expected


# ----------------------------------------------------------------- doors and routes (Saboteur 2)


def minimal(sets):
    sets = set(sets)
    return {s for s in sets if not any(o < s for o in sets)}


def routes_agree(board: Board) -> None:
    routes = board.gold_routes()
    assert minimal(doors for _, doors in routes) == board.gold_door_sets()


def test_single_route_through_a_blue_door():
    board = free_maze([(1, 0, "door-blue-ew", 0), (2, 0, "straight-ew", 0), (3, 0, "goal-gold", 0)])
    assert board.gold_reached
    assert board.gold_door_sets() == {frozenset({"blue"})}
    assert board.gold_routes() == [([(0, 0), (1, 0), (2, 0), (3, 0)], frozenset({"blue"}))]
    routes_agree(board)


def test_two_routes_one_blue_one_green():
    board = free_maze([(1, 0, "door-blue-ew", 0), (2, 0, "straight-ew", 0), (3, 0, "goal-gold", 0),
                       (0, 1, "door-green-es", 0), (1, 1, "straight-ew", 0), (2, 1, "straight-ew", 0),
                       (3, 1, "curve-ne", 180)])
    assert board.gold_door_sets() == {frozenset({"blue"}), frozenset({"green"})}
    routes = board.gold_routes()
    assert sorted((cells, doors) for cells, doors in routes) == sorted([
        ([(0, 0), (1, 0), (2, 0), (3, 0)], frozenset({"blue"})),
        ([(0, 0), (0, 1), (1, 1), (2, 1), (3, 1), (3, 0)], frozenset({"green"})),
    ])
    routes_agree(board)


def test_route_through_both_colours_and_a_blue_only_route():
    # y=0: blue door then green door; y=1: only a blue door -> the minimal set is {blue}
    board = free_maze([(1, 0, "door-blue-ew", 0), (2, 0, "door-green-ew", 0), (3, 0, "goal-gold", 0),
                       (0, 1, "curve-nw", 180), (1, 1, "door-blue-ew", 0), (2, 1, "straight-ew", 0),
                       (3, 1, "curve-ne", 180)])
    assert board.gold_door_sets() == {frozenset({"blue"})}
    assert sorted(doors for _, doors in board.gold_routes()) == sorted([frozenset({"blue", "green"}),
                                                                         frozenset({"blue"})])
    routes_agree(board)


def test_every_route_through_both_colours():
    board = free_maze([(1, 0, "door-blue-ew", 0), (2, 0, "door-green-ew", 0), (3, 0, "goal-gold", 0)])
    assert board.gold_door_sets() == {frozenset({"blue", "green"})}
    routes_agree(board)


def test_a_doorless_route_makes_doors_irrelevant():
    board = free_maze([(1, 0, "door-blue-ew", 0), (2, 0, "straight-ew", 0), (3, 0, "goal-gold", 0),
                       (0, 1, "curve-nw", 180), (1, 1, "straight-ew", 0), (2, 1, "straight-ew", 0),
                       (3, 1, "curve-ne", 180)])
    assert board.gold_door_sets() == {frozenset()}
    assert len(board.gold_routes()) == 2
    routes_agree(board)


def test_green_door_ns_carries_its_door_on_the_ns_tunnel():
    # the route runs north through the green door's NS tunnel and then east to the gold
    board = free_maze([(0, 1, "door-green-ns", 0), (0, 2, "curve-nw", 180), (1, 2, "straight-ew", 0),
                       (2, 2, "goal-gold", 0)])
    assert board.gold_reached
    assert board.gold_door_sets() == {frozenset({"green"})}
    assert board.gold_routes() == [([(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)], frozenset({"green"}))]


def test_green_door_ns_east_stub_does_not_carry_the_door():
    # start -> (1,0) cross -> (2,0) -> gold. door-green-ns at (0,1) hangs off the start by its
    # green NS tunnel; its east stub meets (1,1), a curve hanging off the cross. The stub is
    # reached from (1,1) but carries no door, and no route to the gold passes the green door.
    board = free_maze([(1, 0, "cross", 0), (2, 0, "straight-ew", 0), (3, 0, "goal-gold", 0),
                       (0, 1, "door-green-ns", 0), (1, 1, "curve-ne", 180)])
    # the stub's edge is entered from (1,1), but conducts nothing on into the green tunnel
    assert board.reachable_edges((0, 1)) == m("NES")
    assert board.gold_door_sets() == {frozenset()}
    assert all("green" not in doors for _, doors in board.gold_routes())
    routes_agree(board)


def test_ladder_routes_start_at_the_ladder():
    # start -> blue door -> T -> gold, and a ladder dropping into the T from the north avoids the door
    board = free_maze([(1, 0, "door-blue-ew", 0), (2, 0, "t-new", 0), (3, 0, "goal-gold", 0),
                       (2, 1, "ladder-s", 0)])
    assert board.gold_door_sets() == {frozenset()}
    cells = sorted(c for c, _ in board.gold_routes())
    assert cells == [[(0, 0), (1, 0), (2, 0), (3, 0)], [(2, 1), (2, 0), (3, 0)]]
    routes_agree(board)


def test_no_gold_no_routes():
    board = maze(TO_7_2)
    assert board.gold_door_sets() == set()
    assert board.gold_routes() == []
    # the gold behind a face-down goal is not a route either
    board = maze(row(0, range(1, 7)) + [(7, 0, "dead-ew", 0)])
    assert board.gold_door_sets() == set() and board.gold_routes() == []
