"""The check report never accuses a card on evidence a hand hides, and judges a contested card
as the engine judged its move (hypothesis, deterministic)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine.test_board_properties import BASE_FACES, SETTINGS, grow, path_cells, plans
from engine.board import START_CELL, Board, Placement
from vision.observation import Observation, SeenCard, Unsure, maze_report, rule_on


@settings(max_examples=100, **SETTINGS)
@given(plans, st.integers(0, 2**32 - 1), st.sampled_from([0.2, 0.5]))
def test_a_legal_maze_with_cards_unread_is_never_said_to_break_the_rules(plan, seed, share):
    # a maze grown by legal play (base game, no rockfall: every card joins the start when
    # laid) breaks no rule, though a card may meet the rock of a goal turned over after it
    # was laid, which the rules tolerate; with some of its cards unread (taken off, their
    # cells reported uncertain) it breaks none either: a card's way back to the start may
    # run under them
    goals, grow_seed, steps, greed = plan
    board = grow(goals, grow_seed, steps, greed, faces=BASE_FACES, rockfalls=False)
    assert maze_report(board) == {}
    rng = random.Random(seed)
    unread = [c for c in path_cells(board) if rng.random() < share]
    for cell in unread:
        board.remove(cell)
    assert maze_report(board, unread) == {}


def without_the_start(board):
    """The board as a photo shows it with the start card hidden (a hand or an arm over it)."""
    shown = Board(board.catalogue)
    for p in sorted(board.placements(), key=lambda p: (p.x, p.y)):
        if p.cell != START_CELL:
            shown.put(p)
    return shown


@settings(max_examples=100, **SETTINGS)
@given(plans, st.booleans())
def test_a_legal_maze_with_its_start_unread_is_never_said_to_break_the_rules(plan, listed):
    # the start lies on its place from the set-up on: hidden (reported uncertain, or under an
    # arm the photo took for table and did not report at all), every card's way back leads to it
    goals, grow_seed, steps, greed = plan
    board = grow(goals, grow_seed, steps, greed, faces=BASE_FACES, rockfalls=False)
    assert maze_report(without_the_start(board), [START_CELL] if listed else []) == {}


def seen(board: Board) -> Observation:
    """What a photo of the board shows with every card read surely."""
    return Observation(cards=[SeenCard(p.x, p.y, p.face, p.rotation, 1.0) for p in board.placements()])


@settings(max_examples=100, **SETTINGS)
@given(plans, st.integers(0, 2**32 - 1))
def test_the_contested_card_is_judged_as_the_engine_judged_it_when_it_was_laid(plan, seed):
    # a maze grown by legal play with rockfalls (cards cut off from the start lie on, which
    # the report may not call illegal): the card laid last, contested, is legal, whatever
    # other cards could not be read; a card then laid on a free cell next to the maze gets
    # the engine's own verdict on that move (but for rock against a goal turned over, which
    # the rules tolerate)
    goals, grow_seed, steps, greed = plan
    laid = []
    board = grow(goals, grow_seed, steps, greed, faces=BASE_FACES, on_step=lambda _, p: laid.append(p))
    rng = random.Random(seed)
    if laid and laid[-1] is not None:
        last = laid[-1].cell
        ruling = rule_on(seen(board), last)
        assert ruling.verdict.legal and not ruling.doubted
        shown = seen(board)
        unread = {c for c in path_cells(board) if c != last and rng.random() < 0.3}
        shown.cards = [c for c in shown.cards if c.cell not in unread]
        shown.uncertain = [Unsure(x, y, "occluded") for x, y in sorted(unread)]
        assert rule_on(shown, last).verdict.legal
    move = Placement(*rng.choice(sorted(board.frontier())), rng.choice(BASE_FACES), rng.choice((0, 180)))
    verdict = board.check(move)
    board.put(move)
    ruling = rule_on(seen(board), move.cell)
    assert ruling.verdict.placement == move and not ruling.doubted
    assert ruling.verdict.reasons == tuple(r for r in verdict.reasons if not (
        r.code == "edge-mismatch" and board.shape_at(r.neighbour).face.kind == "goal"))
