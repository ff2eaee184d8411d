"""The maze diagram and the join QR code."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from companion_web.board_svg import Mark, board_svg, card_svg, tunnel_path
from companion_web.qr import qr_svg, qr_text
from engine.board import Board, Placement
from engine.catalogue import E, N, S, W, Tunnel, default_catalogue


def test_face_down_goals_are_drawn_as_backs_and_their_faces_never_appear():
    board = Board.standard(["goal-gold", "goal-stone-ne", "goal-stone-nw"])
    svg = board_svg(board.placements(), board.catalogue)
    ET.fromstring(svg)
    assert svg.count('data-face="goal-back"') == 3
    assert "goal-gold" not in svg and "goal-stone" not in svg


def test_cards_turned_over_refused_and_last_placed_are_marked():
    board = Board.standard(["goal-gold", "goal-stone-ne", "goal-stone-nw"])
    for x in range(1, 8):
        board.put(Placement(x, 0, "cross"))
    svg = board_svg(board.placements(), board.catalogue, frontier=[(1, 1)],
                    marks=[Mark(Placement(1, 1, "straight-ew"), "contested"), Mark(Placement(7, 0, "cross"), "last")])
    ET.fromstring(svg)
    assert 'data-face="goal-stone-ne"' in svg  # (8,0) was reached and turned over
    assert 'class="cell contested" data-x="1" data-y="1"' in svg
    assert 'class="cell empty" data-x="1" data-y="1"' in svg
    assert "#fbbf24" in svg  # the last card's outline
    assert "style=" not in svg  # the page's CSP forbids inline styles


def test_tunnels_stubs_and_bridges():
    assert tunnel_path(Tunnel(N | S)) == "M30,0L30,90"
    assert tunnel_path(Tunnel(N | E)) == "M30,0Q30,45 60,45"
    assert tunnel_path(Tunnel(E)) == "M60,45L43.5,45"
    assert tunnel_path(Tunnel(N | E | W)).count("L30,45") == 3
    bridge = card_svg(default_catalogue().face("bridge").shape(0), "bridge")
    ET.fromstring(bridge)
    assert bridge.count('stroke-width="22"') == 1  # the over-passing tunnel's casing
    for face in default_catalogue().faces.values():
        ET.fromstring(card_svg(face.shape(0), face.id))


def test_the_qr_code_is_an_svg_of_the_url_only():
    svg = qr_svg("http://192.168.1.20:8000/g/abc/join", label="join")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and "style=" not in svg
    text = qr_text("http://192.168.1.20:8000/g/abc/join")
    assert "█" in text and len(text.splitlines()) > 10
