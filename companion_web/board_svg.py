"""The maze as an SVG diagram: grey rock cards, tunnels as white paths, north up.

Drawn from public facts only (the placements everyone can see, with face-down goals as
goal backs), so the picture can go to every screen. Card topology comes from the engine's
catalogue: a tunnel is a set of joined edges, a one-edge tunnel is a stub that stops
inside the card. Colours are presentation attributes rather than inline styles, so the
page's Content-Security-Policy can forbid inline styles.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Iterable

from engine.board import GOAL_CELLS, START_CELL, Placement
from engine.catalogue import E, EDGE_BITS, N, OPPOSITE, S, W, Catalogue, Shape, Tunnel

CARD_W, CARD_H, GAP = 60, 90, 6
LABEL_LEFT, LABEL_TOP = 28, 22

ROCK, ROCK_EDGE = "#77736d", "#5b5852"
TUNNEL = "#f3efe6"
GOAL_BACK, GOLD, COAL = "#2f3a4f", "#f2c230", "#26231f"
DOOR = {"blue": "#3b82f6", "green": "#22a05b"}
CRYSTAL = "#c084fc"
CONTESTED, LAST = "#ef4444", "#fbbf24"

_EDGE_POINT = {N: (CARD_W / 2, 0), E: (CARD_W, CARD_H / 2), S: (CARD_W / 2, CARD_H), W: (0, CARD_H / 2)}
_CENTRE = (CARD_W / 2, CARD_H / 2)


@dataclass(frozen=True)
class Mark:
    """A card drawn with a highlight: the last one placed, or one the engine refused."""

    placement: Placement
    kind: str  # "last" | "contested"


def _fmt(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _point(p: tuple[float, float]) -> str:
    return f"{_fmt(p[0])},{_fmt(p[1])}"


def _toward_centre(bit: int, fraction: float) -> tuple[float, float]:
    (x, y), (cx, cy) = _EDGE_POINT[bit], _CENTRE
    return x + (cx - x) * fraction, y + (cy - y) * fraction


def tunnel_path(tunnel: Tunnel) -> str:
    """Path data for one tunnel: stubs stop short, two edges bend through the middle, more meet at the centre."""
    bits = [b for b in EDGE_BITS if tunnel.edges & b]
    if len(bits) == 1:
        return f"M{_point(_EDGE_POINT[bits[0]])}L{_point(_toward_centre(bits[0], 0.55))}"
    if len(bits) == 2:
        a, b = bits
        if OPPOSITE[a] == b:
            return f"M{_point(_EDGE_POINT[a])}L{_point(_EDGE_POINT[b])}"
        return f"M{_point(_EDGE_POINT[a])}Q{_point(_CENTRE)} {_point(_EDGE_POINT[b])}"
    return "".join(f"M{_point(_EDGE_POINT[b])}L{_point(_CENTRE)}" for b in bits)


def _tunnel_middle(tunnel: Tunnel) -> tuple[float, float]:
    bits = [b for b in EDGE_BITS if tunnel.edges & b]
    if len(bits) == 1:
        return _toward_centre(bits[0], 0.4)
    if len(bits) == 2 and OPPOSITE[bits[0]] != bits[1]:
        (ax, ay), (bx, by), (cx, cy) = _EDGE_POINT[bits[0]], _EDGE_POINT[bits[1]], _CENTRE
        return 0.25 * ax + 0.5 * cx + 0.25 * bx, 0.25 * ay + 0.5 * cy + 0.25 * by
    return _CENTRE


def _ladder(x: float, y: float) -> str:
    rungs = "".join(f'<line x1="{_fmt(x - 6)}" y1="{_fmt(y + dy)}" x2="{_fmt(x + 6)}" y2="{_fmt(y + dy)}"/>'
                    for dy in (-7, 0, 7))
    return (f'<g stroke="#8a5a2b" stroke-width="2.5" stroke-linecap="round">'
            f'<line x1="{_fmt(x - 6)}" y1="{_fmt(y - 12)}" x2="{_fmt(x - 6)}" y2="{_fmt(y + 12)}"/>'
            f'<line x1="{_fmt(x + 6)}" y1="{_fmt(y - 12)}" x2="{_fmt(x + 6)}" y2="{_fmt(y + 12)}"/>{rungs}</g>')


def card_body(shape: Shape) -> str:
    """The inside of one card (0,0 top-left, CARD_W x CARD_H), without position or highlight."""
    face = shape.face
    if face.kind == "goal-back":
        return (f'<rect width="{CARD_W}" height="{CARD_H}" rx="6" fill="{GOAL_BACK}" stroke="#8fa3c7" '
                f'stroke-width="2"/><text x="{CARD_W / 2}" y="{CARD_H / 2 + 10}" text-anchor="middle" '
                f'font-size="30" font-weight="700" fill="#dbe4f5" font-family="sans-serif">?</text>')
    border = GOLD if face.gold else "#c9a46a" if face.kind == "start" else ROCK_EDGE
    parts = [f'<rect width="{CARD_W}" height="{CARD_H}" rx="6" fill="{ROCK}" stroke="{border}" stroke-width="2"/>']
    tunnels = sorted(shape.tunnels, key=lambda t: t.edges.bit_count())
    for i, tunnel in enumerate(tunnels):
        d = tunnel_path(tunnel)
        if i and len(tunnels) > 1 and not tunnel.is_stub:
            # A second through-tunnel (bridge) passes over the first: a rock-coloured
            # casing underneath shows that the two do not join.
            parts.append(f'<path d="{d}" fill="none" stroke="{ROCK}" stroke-width="22"/>')
        parts.append(f'<path d="{d}" fill="none" stroke="{TUNNEL}" stroke-width="14"/>')
        if tunnel.is_stub and not tunnel.ladder:
            end = _toward_centre(next(b for b in EDGE_BITS if tunnel.edges & b), 0.55)
            parts.append(f'<circle cx="{_fmt(end[0])}" cy="{_fmt(end[1])}" r="5" fill="{ROCK_EDGE}"/>')
        if tunnel.door:
            mx, my = _tunnel_middle(tunnel)
            parts.append(f'<rect x="{_fmt(mx - 9)}" y="{_fmt(my - 9)}" width="18" height="18" rx="3" '
                         f'fill="{DOOR[tunnel.door]}" stroke="#0b1220" stroke-width="1.5"/>')
        if tunnel.ladder:
            parts.append(_ladder(*_tunnel_middle(tunnel)))
    if face.kind == "start":
        parts.append(_ladder(*_CENTRE))
    if face.kind == "goal":
        cx, cy = _CENTRE
        if face.gold:
            parts.append(f'<polygon points="{_fmt(cx - 12)},{_fmt(cy + 4)} {_fmt(cx - 6)},{_fmt(cy - 9)} '
                         f'{_fmt(cx + 7)},{_fmt(cy - 10)} {_fmt(cx + 13)},{_fmt(cy + 2)} {_fmt(cx + 4)},{_fmt(cy + 11)}" '
                         f'fill="{GOLD}" stroke="#8a6a00" stroke-width="2"/>')
        else:
            parts.append(f'<polygon points="{_fmt(cx - 10)},{_fmt(cy + 3)} {_fmt(cx - 4)},{_fmt(cy - 8)} '
                         f'{_fmt(cx + 9)},{_fmt(cy - 5)} {_fmt(cx + 10)},{_fmt(cy + 6)} {_fmt(cx)},{_fmt(cy + 10)}" '
                         f'fill="{COAL}" stroke="#000" stroke-width="1.5"/>')
    for i in range(face.crystals):
        x, y = CARD_W - 11 - 12 * i, 11
        parts.append(f'<polygon points="{x},{y - 7} {x + 6},{y} {x},{y + 7} {x - 6},{y}" fill="{CRYSTAL}" '
                     f'stroke="#4c1d95" stroke-width="1.5"/>')
    return "".join(parts)


def card_svg(shape: Shape, title: str = "", size: int = 40) -> str:
    """One card as a standalone SVG icon (the host's card palette)."""
    height = round(size * CARD_H / CARD_W)
    label = f"<title>{escape(title)}</title>" if title else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="-2 -2 {CARD_W + 4} {CARD_H + 4}" width="{size}" '
            f'height="{height}" role="img" aria-label="{escape(title)}">{label}{card_body(shape)}</svg>')


def board_svg(placements: Iterable[Placement], catalogue: Catalogue, *, marks: Iterable[Mark] = (),
              frontier: Iterable[tuple[int, int]] = (), label: str = "") -> str:
    """The whole maze. ``frontier`` cells are drawn as empty outlines a host can click."""
    cards = {p.cell: p for p in placements}
    marks = list(marks)
    cells = set(cards) | set(frontier) | {m.placement.cell for m in marks} | {START_CELL, *GOAL_CELLS}
    x0, x1 = min(c[0] for c in cells), max(c[0] for c in cells)
    y0, y1 = min(c[1] for c in cells), max(c[1] for c in cells)
    pitch_x, pitch_y = CARD_W + GAP, CARD_H + GAP
    width = LABEL_LEFT + (x1 - x0 + 1) * pitch_x
    height = LABEL_TOP + (y1 - y0 + 1) * pitch_y

    def origin(cell: tuple[int, int]) -> tuple[int, int]:
        return LABEL_LEFT + (cell[0] - x0) * pitch_x, LABEL_TOP + (y1 - cell[1]) * pitch_y

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="maze" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="{escape(label)}">']
    out.append('<g font-family="sans-serif" font-size="12" fill="#a3acb9" text-anchor="middle">')
    out += [f'<text x="{LABEL_LEFT + (x - x0) * pitch_x + CARD_W // 2}" y="14">{x}</text>' for x in range(x0, x1 + 1)]
    out += [f'<text x="12" y="{LABEL_TOP + (y1 - y) * pitch_y + CARD_H // 2 + 4}">{y}</text>'
            for y in range(y0, y1 + 1)]
    out.append("</g>")
    for cell in sorted(set(frontier) - set(cards)):
        px, py = origin(cell)
        out.append(f'<g class="cell empty" data-x="{cell[0]}" data-y="{cell[1]}" transform="translate({px},{py})">'
                   f'<title>({cell[0]},{cell[1]})</title><rect width="{CARD_W}" height="{CARD_H}" rx="6" '
                   f'fill="#ffffff" fill-opacity="0.03" stroke="#4b5563" stroke-dasharray="4 4"/></g>')
    for cell, p in sorted(cards.items()):
        px, py = origin(cell)
        shape = catalogue.face(p.face).shape(p.rotation)
        name = "face-down goal" if p.face == "goal-back" else p.face + (" 180°" if p.rotation else "")
        out.append(f'<g class="cell card" data-x="{cell[0]}" data-y="{cell[1]}" data-face="{escape(p.face)}" '
                   f'transform="translate({px},{py})"><title>({cell[0]},{cell[1]}) {escape(name)}</title>'
                   f'{card_body(shape)}</g>')
    for mark in marks:
        p = mark.placement
        px, py = origin(p.cell)
        if mark.kind == "contested":
            shape = catalogue.face(p.face).shape(p.rotation)
            out.append(f'<g class="cell contested" data-x="{p.x}" data-y="{p.y}" transform="translate({px},{py})">'
                       f'<title>({p.x},{p.y}) {escape(p.face)}: illegal</title><g opacity="0.55">{card_body(shape)}</g>'
                       f'<rect x="-3" y="-3" width="{CARD_W + 6}" height="{CARD_H + 6}" rx="8" fill="none" '
                       f'stroke="{CONTESTED}" stroke-width="3" stroke-dasharray="7 4"/>'
                       f'<circle cx="{CARD_W - 4}" cy="4" r="10" fill="{CONTESTED}"/>'
                       f'<path d="M{CARD_W - 9},-1L{CARD_W + 1},9M{CARD_W + 1},-1L{CARD_W - 9},9" stroke="#fff" '
                       f'stroke-width="2.5"/></g>')
        else:
            out.append(f'<rect x="{px - 3}" y="{py - 3}" width="{CARD_W + 6}" height="{CARD_H + 6}" rx="8" '
                       f'fill="none" stroke="{LAST}" stroke-width="3"/>')
    out.append("</svg>")
    return "".join(out)
