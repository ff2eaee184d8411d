"""An ASCII drawing of the maze, north up, for terminals and logs.

Each card is five characters wide and three high. A tunnel edge is drawn with ``|`` or
``-``, a stub with ``:`` or ``.`` (it stops inside the card); the centre says what the card
is: ``S`` start, ``?`` face-down goal, ``G`` gold, ``o`` stone, ``H`` ladder, ``b``/``g``
a blue/green door, ``*`` a crystal, ``#`` two tunnels that do not join, ``x`` a dead end,
``+`` one tunnel. A cell the camera could not read surely (a hand over it, a card it is
unsure of) is drawn ``~~~``, so that it is not taken for a bare cell.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from .catalogue import E, N, S, W, Shape

if TYPE_CHECKING:
    from .board import Board

LEGEND = ("S start  ? face-down goal  G gold  o stone  H ladder  b/g blue/green door  * crystal  "
          "# separate tunnels  x dead end  + tunnel;  | - tunnel edge  : . stub")
UNREAD = ["     ", " ~~~ ", "     "]


def card_centre(shape: Shape) -> str:
    face = shape.face
    if face.kind == "start":
        return "S"
    if face.kind == "goal-back":
        return "?"
    if face.kind == "goal":
        return "G" if face.gold else "o"
    if face.has_ladder:
        return "H"
    door = next((t.door for t in shape.tunnels if t.door), None)
    if door:
        return door[0]
    if face.crystals:
        return "*"
    joined = [t for t in shape.tunnels if not t.is_stub]
    if not joined:
        return "x"
    return "#" if len(joined) > 1 else "+"


def card_rows(shape: Shape) -> list[str]:
    if shape.face.kind == "goal-back":
        return ["+---+", "| ? |", "+---+"]

    def mark(bit: int, tunnel: str, stub: str) -> str:
        t = shape.tunnel_at.get(bit)
        if t is None:
            return " "
        return stub if t.is_stub and not t.ladder else tunnel

    n, s = mark(N, "|", ":"), mark(S, "|", ":")
    e, w = mark(E, "-", "."), mark(W, "-", ".")
    return [f"  {n}  ", f"{w}{w}{card_centre(shape)}{e}{e}", f"  {s}  "]


def draw_board(board: Board, *, legend: bool = False, unread: Collection[tuple[int, int]] = ()) -> str:
    """The maze, with the ``unread`` cells (the camera's uncertain ones) marked."""
    unread = set(unread)
    x0, y0, x1, y1 = board.bounds()
    for x, y in unread:
        x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
    lines = ["      " + "".join(f"{x:^5d}" for x in range(x0, x1 + 1))]
    empty = ["     ", "  .  ", "     "]
    for y in range(y1, y0 - 1, -1):
        rows = ["", "", ""]
        for x in range(x0, x1 + 1):
            shape = board.shape_at((x, y))
            drawn = card_rows(shape) if shape is not None else UNREAD if (x, y) in unread else empty
            for i in range(3):
                rows[i] += drawn[i]
        for i, row in enumerate(rows):
            label = f"{y:>4d}  " if i == 1 else "      "
            lines.append((label + row).rstrip())
    if legend:
        lines.append(LEGEND)
    return "\n".join(lines)
