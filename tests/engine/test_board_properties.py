"""Properties of mazes grown by random legal play (hypothesis, deterministic)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board, Placement
from engine.catalogue import EDGE_BITS, OPPOSITE, ROTATIONS, STEP, default_catalogue, turn_half

CAT = default_catalogue()
GOALS = ("goal-stone-nw", "goal-gold", "goal-stone-ne")
# faces weighted by their copies, as they come out of a deck
BASE_FACES = sorted(f.id for f in CAT.path_faces(("base",)) for _ in range(f.copies))
ALL_FACES = sorted(f.id for f in CAT.path_faces(("base", "saboteur2")) for _ in range(f.copies))
EVERY_FACE = sorted(CAT.faces)

SETTINGS = dict(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# A plan is a seeded sequence of choices: the goals' order, a seed, a number of steps and a
# greed. Each step tries a random face (weighted by copies) and takes one of its legal
# placements; with probability ``greed`` it prefers cards whose tunnels lead on toward a goal
# and cells nearest a goal, so that many mazes reach the goals. Now and then a step is a
# rockfall instead.
plans = st.tuples(st.permutations(GOALS), st.integers(0, 2**32 - 1), st.integers(5, 80), st.sampled_from([0.95, 0.5]))
GOAL_CELLS = ((8, 2), (8, 0), (8, -2))


def path_cells(board: Board) -> list[tuple[int, int]]:
    return sorted(p.cell for p in board.placements() if CAT.face(p.face).is_path)


def _to_goals(p: Placement) -> int:
    return min(abs(p.x - gx) + abs(p.y - gy) for gx, gy in GOAL_CELLS)


def _leads_on(p: Placement) -> bool:
    """The placement's tunnels lead from its cell onward to a cell nearer a goal."""
    shape = CAT.face(p.face).shape(p.rotation)
    here = _to_goals(p)
    return any(not t.is_stub and any(t.edges & bit and _to_goals(Placement(p.x + STEP[bit][0], p.y + STEP[bit][1],
                                                                         p.face)) < here for bit in EDGE_BITS)
               for t in shape.tunnels)


def grow(goals, seed, steps, greed=0.5, *, faces=ALL_FACES, rockfalls: bool = True, on_step=None) -> Board:
    rng = random.Random(seed)
    board = Board.standard(list(goals))
    for _ in range(steps):
        if rockfalls and rng.random() < 1 / 12 and path_cells(board):
            board.remove(rng.choice(path_cells(board)))
            if on_step:
                on_step(board, None)
            continue
        options = board.legal_placements(rng.choice(faces))
        if not options:
            continue
        if rng.random() < greed:  # favour cards that lead on toward the goals
            leading = [p for p in options if _leads_on(p)]
            options = leading or options
        if not options:
            continue
        if rng.random() < greed:
            best = min(_to_goals(p) for p in options)
            options = [p for p in options if _to_goals(p) == best]
        p = rng.choice(options)
        board.place(p)
        if on_step:
            on_step(board, p)
    return board


def reach_map(board: Board) -> dict:
    cells = set(board.frontier()) | {p.cell for p in board.placements()}
    return {c: board.reachable_edges(c) for c in cells}


def rebuilt(board: Board) -> Board:
    return Board.from_json(json.loads(json.dumps(board.to_json())))


def assert_consistent(board: Board) -> None:
    for p in board.placements():
        shape = board.shape_at(p.cell)
        if shape.face.kind != "path":
            continue
        for bit in EDGE_BITS:
            dx, dy = STEP[bit]
            n = (p.x + dx, p.y + dy)
            other = board.shape_at(n)
            if other is None or other.face.kind in ("goal", "goal-back"):
                continue
            assert bool(shape.open & bit) == bool(other.open & OPPOSITE[bit]), (p, n)


def assert_reach_closed(board: Board) -> None:
    """Reach covers whole tunnels, only open edges, and flows across every shared open edge."""
    for p in board.placements():
        shape = board.shape_at(p.cell)
        reach = board.reachable_edges(p.cell)
        if board.is_hidden_goal(p.cell):
            assert reach == 0
            continue
        assert reach & ~shape.open == 0, p
        for t in shape.tunnels:
            assert reach & t.edges in (0, t.edges), p  # a tunnel is reached whole or not at all
            if shape.face.kind == "start" or t.ladder:
                assert reach & t.edges == t.edges, p  # sources
        for bit in EDGE_BITS:
            if not reach & bit:
                continue
            dx, dy = STEP[bit]
            n = (p.x + dx, p.y + dy)
            other = board.shape_at(n)
            if other is None or board.is_hidden_goal(n):
                continue
            facing = other.tunnel_at.get(OPPOSITE[bit])
            if facing is not None:
                assert board.reachable_edges(n) & facing.edges == facing.edges, (p, n)


@settings(max_examples=400, **SETTINGS)
@given(plans)
def test_grown_boards_stay_consistent_and_every_card_touches_reach(plan):
    placed = []

    def on_step(board, p):
        if p is not None:
            placed.append(p)
            assert board.reachable_edges(p.cell) != 0, p  # it touched reach when laid
            assert board.at(p.cell) == p

    board = grow(*plan, on_step=on_step)
    assert_consistent(board)
    assert_reach_closed(board)
    # every goal a conducting tunnel touches has been turned over
    assert board.goals_touched() == []
    assert board.gold_reached == any(board.at(c).face == "goal-gold" and board.is_reachable(c)
                                     for c in board.goal_cells)


@settings(max_examples=250, **SETTINGS)
@given(plans, st.sampled_from(EVERY_FACE), st.lists(st.tuples(st.integers(-30, 30), st.integers(-30, 30)),
                                                    max_size=8))
def test_legal_placements_agrees_with_check_everywhere(plan, face, far):
    board = grow(*plan)
    legal = set(board.legal_placements(face))
    frontier = board.frontier()
    for x, y in frontier:
        for rotation in ROTATIONS:
            p = Placement(x, y, face, rotation)
            verdict = board.check(p)
            assert (p in legal) == verdict.legal, verdict
            assert board.is_legal(p) == verdict.legal
    assert all(p.cell in frontier and p.rotation in ROTATIONS for p in legal)
    # occupied cells and cells touching nothing are never legal
    for p in board.placements():
        for rotation in ROTATIONS:
            v = board.check(Placement(p.x, p.y, face, rotation))
            assert not v.legal and "occupied" in [r.code for r in v.reasons]
    for x, y in far:
        if (x, y) in frontier or (x, y) in board:
            continue
        for rotation in ROTATIONS:
            v = board.check(Placement(x, y, face, rotation))
            assert not v.legal
    # a player with a broken tool or a trap has nowhere to go
    assert board.legal_placements(face, broken_tools=["cart"]) == []
    assert board.legal_placements(face, trapped=True) == []
    if not CAT.face(face).is_path:
        assert legal == set()


@settings(max_examples=len(EVERY_FACE) * 3, **SETTINGS)
@given(st.sampled_from(EVERY_FACE), st.integers(0, 15))
def test_turning_a_shape_twice_is_the_identity(face_id, mask):
    assert turn_half(turn_half(mask)) == mask
    assert (turn_half(mask) & 15) == turn_half(mask)
    face = CAT.face(face_id)
    upright, turned = face.shape(0), face.shape(180)
    assert turned.open == turn_half(upright.open)
    assert [(turn_half(t.edges), t.door, t.ladder) for t in turned.tunnels] == \
        [(t.edges, t.door, t.ladder) for t in upright.tunnels]
    assert [t.turned(180).turned(180) for t in upright.tunnels] == list(upright.tunnels)
    assert [t.turned(180) for t in upright.tunnels] == list(turned.tunnels)
    for bit in EDGE_BITS:
        a, b = upright.tunnel_at.get(bit), turned.tunnel_at.get(turn_half(bit))
        assert (a is None) == (b is None)
        if a is not None:
            assert turn_half(a.edges) == b.edges


@settings(max_examples=300, **SETTINGS)
@given(plans)
def test_board_json_round_trips_and_rebuilds_the_same_reach(plan):
    board = grow(*plan)
    doc = board.to_json()
    again = rebuilt(board)
    assert again.to_json() == doc
    assert json.loads(json.dumps(again.to_json())) == doc
    assert reach_map(again) == reach_map(board)
    assert again.hidden_goals == board.hidden_goals
    assert again.gold_reached == board.gold_reached
    assert again.crystals() == board.crystals()
    assert again.gold_door_sets() == board.gold_door_sets()


@settings(max_examples=200, **SETTINGS)
@given(plans)
def test_incremental_reach_after_each_step_equals_a_rebuild(plan):
    def on_step(board, p):
        assert reach_map(rebuilt(board)) == reach_map(board), p

    grow(*plan, on_step=on_step)


@settings(max_examples=300, **SETTINGS)
@given(plans, st.integers(0, 10**6))
def test_removing_then_reputting_a_card_restores_reach(plan, pick):
    board = grow(*plan)
    cells = path_cells(board)
    if not cells:
        return
    before_reach, before_doc = reach_map(board), board.to_json()
    removed = board.remove(cells[pick % len(cells)])
    assert removed.cell not in board
    assert reach_map(rebuilt(board)) == reach_map(board)
    board.put(removed)
    assert board.to_json() == before_doc
    assert reach_map(board) == before_reach


@settings(max_examples=200, **SETTINGS)
@given(plans)
def test_base_game_growth_from_the_start_only(plan):
    board = grow(*plan, faces=BASE_FACES, rockfalls=False)
    assert_consistent(board)
    # without ladders or rockfalls every path card conducts from the start
    for cell in path_cells(board):
        assert board.is_reachable(cell), cell
    assert reach_map(rebuilt(board)) == reach_map(board)
