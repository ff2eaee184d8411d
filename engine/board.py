"""The maze on the table: placements, the legality check and connectivity.

Vocabulary (after python-chess): a ``Cell`` is an (x, y) in the maze frame, a
``Placement`` is a face laid on a cell in one rotation, the ``Board`` holds placements and
answers ``check(placement)`` with a ``Verdict``.

Connectivity is a flood over tunnels, not cells: a card may hold several tunnels that do
not join (bridge, double curve, a stub beside a tunnel), so the board keeps, per cell, the
mask of edges whose tunnel is reachable from the start. The mask is derived state: it is
rebuilt from the placements whenever cards leave the board, and extended incrementally
when one arrives, which keeps a legality check to a handful of dictionary look-ups.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

from .catalogue import (
    EDGE_BITS,
    EDGE_LETTER,
    EDGE_NAME,
    OPPOSITE,
    ROTATIONS,
    STEP,
    Catalogue,
    CatalogueError,
    Face,
    Shape,
    Tunnel,
    default_catalogue,
)

Cell = tuple[int, int]

START_CELL: Cell = (0, 0)
GOAL_CELLS: tuple[Cell, ...] = ((8, 2), (8, 0), (8, -2))
GOAL_BACK = "goal-back"


@dataclass(frozen=True)
class Placement:
    x: int
    y: int
    face: str
    rotation: int = 0

    @property
    def cell(self) -> Cell:
        return (self.x, self.y)

    def to_dict(self) -> dict:
        return {"x": self.x, "y": self.y, "face": self.face, "rotation": self.rotation}

    def __str__(self) -> str:
        turn = " turned 180°" if self.rotation == 180 else "" if self.rotation == 0 else f" at {self.rotation}°"
        return f"{self.face}{turn} at ({self.x},{self.y})"


@dataclass(frozen=True)
class Reason:
    """One failed condition of a placement, in words a player understands."""

    code: str
    message: str
    neighbour: Cell | None = None
    edge: str | None = None

    def to_dict(self) -> dict:
        out = {"code": self.code, "message": self.message}
        if self.neighbour is not None:
            out["neighbour"] = list(self.neighbour)
        if self.edge is not None:
            out["edge"] = self.edge
        return out


@dataclass(frozen=True)
class Verdict:
    placement: Placement
    reasons: tuple[Reason, ...] = ()
    reveals: tuple[Cell, ...] = ()
    gold_reached: bool = False

    @property
    def legal(self) -> bool:
        return not self.reasons

    def to_dict(self) -> dict:
        return {
            "legal": self.legal,
            "reasons": [r.message for r in self.reasons],
            "reveals": [list(c) for c in self.reveals],
            "gold_reached": self.gold_reached,
        }

    def __str__(self) -> str:
        if not self.legal:
            return f"{self.placement}: illegal: " + "; ".join(r.message for r in self.reasons)
        said = f"{self.placement}: legal"
        if self.reveals:
            said += "; turns over the goal" + ("s" if len(self.reveals) > 1 else "") + " at " + ", ".join(
                f"({x},{y})" for x, y in self.reveals)
        if self.gold_reached:
            said += "; the gold is reached"
        return said


class IllegalPlacement(ValueError):
    def __init__(self, verdict: Verdict):
        super().__init__(str(verdict))
        self.verdict = verdict


class BoardError(ValueError):
    """An operation the maze does not allow (rockfall on the start, a card on a taken cell...)."""


@dataclass
class Growth:
    """What laying one card changes: newly reached edges, goals turned over, the gold."""

    reach: dict[Cell, int]
    revealed: dict[Cell, Shape]
    pending: list[Cell]  # goals reached whose secret face the board does not know
    gold: bool


def _cell_name(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


class Board:
    """A maze of placed cards on an unbounded grid.

    Hidden goals are stored as goal backs with their secret face beside them (``None`` when
    the board is built from a camera and the secret is not known).
    """

    def __init__(self, catalogue: Catalogue | None = None):
        self.catalogue = catalogue or default_catalogue()
        self._cards: dict[Cell, Shape] = {}
        self._hidden: dict[Cell, str | None] = {}
        self._reach: dict[Cell, int] = {}
        self._goal_cells: set[Cell] = set()

    # ----------------------------------------------------------------- building

    @classmethod
    def standard(cls, goals: Iterable[str | None] | None = None, catalogue: Catalogue | None = None) -> Board:
        """The standard layout: start face up at (0,0), three goals face down in column 8.

        ``goals`` are the secret faces for (8,2), (8,0), (8,-2); shuffle them with the
        game's random generator before calling. Omitted, the secrets are unknown.
        """
        board = cls(catalogue)
        board.put(Placement(0, 0, "start"))
        secrets = list(goals) if goals is not None else [None] * len(GOAL_CELLS)
        if len(secrets) != len(GOAL_CELLS):
            raise BoardError("the standard layout has three goals")
        for (x, y), secret in zip(GOAL_CELLS, secrets):
            board.add_hidden_goal((x, y), secret)
        return board

    def add_hidden_goal(self, cell: Cell, secret: str | None) -> None:
        if secret is not None and self.catalogue.face(secret).kind != "goal":
            raise BoardError(f"{secret!r} is not a goal card")
        if cell in self._cards:
            raise BoardError(f"{_cell_name(cell)} already holds a card")
        self._cards[cell] = self.catalogue.face(GOAL_BACK).shape(0)
        self._hidden[cell] = secret
        self._goal_cells.add(cell)

    def put(self, placement: Placement) -> Growth:
        """Lay a card without judging it (the physical maze is what it is) and follow the tunnels.

        Goals reached by a conducting tunnel are turned over when their secret is known.
        """
        face = self.catalogue.face(placement.face)
        if placement.rotation not in ROTATIONS:
            raise BoardError(f"{placement}: a card in the maze is upright or turned 180°")
        cell = placement.cell
        if cell in self._cards:
            raise BoardError(f"{_cell_name(cell)} already holds a card")
        if face.kind == "goal-back":
            self.add_hidden_goal(cell, None)
            return Growth({}, {}, [], False)
        shape = face.shape(placement.rotation)
        self._cards[cell] = shape
        if face.kind == "goal":
            self._goal_cells.add(cell)
        growth = self._grow(cell, shape)
        self._commit(growth)
        return growth

    def place(self, placement: Placement, *, broken_tools: Iterable[str] = (), trapped: bool = False) -> Verdict:
        """Judge a placement and, when legal, lay it. Raises IllegalPlacement otherwise."""
        verdict = self.check(placement, broken_tools=broken_tools, trapped=trapped)
        if not verdict.legal:
            raise IllegalPlacement(verdict)
        self.put(placement)
        return verdict

    def remove(self, cell: Cell) -> Placement:
        """Rockfall: take one path card out of the maze (never the start or a goal)."""
        shape = self._cards.get(cell)
        if shape is None:
            raise BoardError(f"there is no card at {_cell_name(cell)}")
        if shape.face.kind != "path":
            what = "the start card" if shape.face.kind == "start" else "a goal card"
            raise BoardError(f"a rockfall cannot remove {what} at {_cell_name(cell)}")
        del self._cards[cell]
        self._rebuild_reach()
        return Placement(cell[0], cell[1], shape.face.id, shape.rotation)

    def reveal(self, cell: Cell, face_id: str | None = None, rotation: int | None = None) -> Placement:
        """Turn a face-down goal over (the camera saw it, or the tunnel reached it).

        Without a rotation the goal is laid to open toward the tunnels that reach it.
        """
        if cell not in self._hidden:
            raise BoardError(f"there is no face-down goal at {_cell_name(cell)}")
        face = self.catalogue.face(face_id or self._hidden[cell] or "")
        if face.kind != "goal":
            raise BoardError(f"{face.id!r} is not a goal card")
        if rotation is None:
            rotation = self._opening_rotation(face, self._reaching_edges(cell, self._reach, {}))
        shape = face.shape(rotation)
        del self._hidden[cell]
        self._cards[cell] = shape
        self._rebuild_reach()
        return Placement(cell[0], cell[1], face.id, rotation)

    def copy(self) -> Board:
        other = Board(self.catalogue)
        other._cards = dict(self._cards)
        other._hidden = dict(self._hidden)
        other._reach = dict(self._reach)
        other._goal_cells = set(self._goal_cells)
        return other

    # ----------------------------------------------------------------- looking

    def __contains__(self, cell: Cell) -> bool:
        return cell in self._cards

    def __len__(self) -> int:
        return len(self._cards)

    def shape_at(self, cell: Cell) -> Shape | None:
        return self._cards.get(cell)

    def at(self, cell: Cell) -> Placement | None:
        shape = self._cards.get(cell)
        return None if shape is None else Placement(cell[0], cell[1], shape.face.id, shape.rotation)

    def placements(self) -> Iterator[Placement]:
        """Every card as seen on the table (face-down goals as goal backs), in reading order."""
        for cell in sorted(self._cards, key=lambda c: (-c[1], c[0])):
            yield self.at(cell)

    @property
    def hidden_goals(self) -> dict[Cell, str | None]:
        return dict(self._hidden)

    @property
    def goal_cells(self) -> frozenset[Cell]:
        return frozenset(self._goal_cells)

    def is_hidden_goal(self, cell: Cell) -> bool:
        return cell in self._hidden

    def reachable_edges(self, cell: Cell) -> int:
        """Mask of this cell's edges whose tunnel conducts from the start."""
        return self._reach.get(cell, 0)

    def is_reachable(self, cell: Cell) -> bool:
        return bool(self._reach.get(cell))

    @property
    def gold_reached(self) -> bool:
        return any(self._cards[c].face.gold and self._reach.get(c) for c in self._goal_cells if c not in self._hidden)

    def goals_touched(self) -> list[Cell]:
        """Face-down goals that a conducting tunnel already reaches (to be turned over)."""
        return sorted(c for c in self._hidden if self._reaching_edges(c, self._reach, {}))

    def crystals(self) -> int:
        return sum(shape.face.crystals for shape in self._cards.values())

    def frontier(self) -> set[Cell]:
        """Empty cells orthogonally next to a card: the only cells a card may be added to."""
        cells = set()
        for x, y in self._cards:
            for dx, dy in STEP.values():
                n = (x + dx, y + dy)
                if n not in self._cards:
                    cells.add(n)
        return cells

    def bounds(self) -> tuple[int, int, int, int]:
        xs = [c[0] for c in self._cards] or [0]
        ys = [c[1] for c in self._cards] or [0]
        return min(xs), min(ys), max(xs), max(ys)

    # ----------------------------------------------------------------- judging

    def check(self, placement: Placement, *, broken_tools: Iterable[str] = (), trapped: bool = False) -> Verdict:
        """Every failed condition of laying this card here, and what it would turn over."""
        face = self.catalogue.face(placement.face)
        reasons = self._failures(face, placement, tuple(broken_tools), trapped)
        if reasons:
            return Verdict(placement, tuple(reasons))
        growth = self._grow(placement.cell, face.shape(placement.rotation))
        return Verdict(placement, (), tuple(sorted(list(growth.revealed) + growth.pending)), growth.gold)

    def is_legal(self, placement: Placement, *, broken_tools: Iterable[str] = (), trapped: bool = False) -> bool:
        face = self.catalogue.face(placement.face)
        return not self._failures(face, placement, tuple(broken_tools), trapped, first_only=True)

    def legal_placements(self, face_id: str, *, broken_tools: Iterable[str] = (), trapped: bool = False) -> list[Placement]:
        """Every cell and rotation where ``check`` would find this card legal."""
        face = self.catalogue.face(face_id)
        tools = tuple(broken_tools)
        if tools or trapped or not face.is_path:
            return []
        found = []
        for x, y in sorted(self.frontier()):
            for rotation in ROTATIONS:
                p = Placement(x, y, face_id, rotation)
                if not self._failures(face, p, (), False, first_only=True):
                    found.append(p)
        return found

    def _failures(self, face: Face, p: Placement, broken_tools: tuple[str, ...], trapped: bool,
                  first_only: bool = False) -> list[Reason]:
        reasons: list[Reason] = []
        cell = p.cell
        cards = self._cards
        for tool in broken_tools:
            reasons.append(Reason("broken-tool", f"the player has a broken {tool} in front of them"))
        if trapped:
            reasons.append(Reason("trapped", "the player is trapped and may not lay path cards"))
        if not face.is_path:
            reasons.append(Reason("not-a-path-card", f"{face.id} is laid at set-up, never played"))
        if reasons and first_only:
            return reasons
        occupant = cards.get(cell)
        if occupant is not None:
            what = {"start": "the start card", "goal": "a goal card", "goal-back": "a goal card"}.get(
                occupant.face.kind, f"a card ({occupant.face.id})")
            reasons.append(Reason("occupied", f"{_cell_name(cell)} already holds {what}", cell))
            if first_only:
                return reasons
        x, y = cell
        neighbours = []
        for bit in EDGE_BITS:
            dx, dy = STEP[bit]
            n = (x + dx, y + dy)
            shape = cards.get(n)
            if shape is not None:
                neighbours.append((bit, n, shape))
        if p.rotation not in ROTATIONS:
            reasons.append(Reason("crosswise", "the card is laid crosswise; a path card lies upright or turned 180°"))
        if not neighbours:
            reasons.append(Reason("not-adjacent", f"{_cell_name(cell)} does not touch any card of the maze"))
        if reasons and (first_only or not neighbours or p.rotation not in ROTATIONS):
            return reasons  # a crosswise card's edges do not line up with the lattice: nothing more to compare
        shape = face.shape(p.rotation)
        mine = shape.open
        connected = False
        touches_goal = None
        touches_open = False
        for bit, n, other in neighbours:
            if other.face.kind in ("goal", "goal-back"):
                touches_goal = n
            theirs = bool(other.open & OPPOSITE[bit])
            if n in self._hidden:
                continue  # a face-down goal's edges are secret: they constrain nothing, conduct nothing
            ours = bool(mine & bit)
            if ours != theirs:
                reasons.append(Reason(
                    "edge-mismatch",
                    f"the {EDGE_NAME[bit]} edge is {'a tunnel' if ours else 'rock'} but the card at "
                    f"{_cell_name(n)} has {'a tunnel' if theirs else 'rock'} there",
                    n, EDGE_LETTER[bit]))
                if first_only:
                    return reasons
            elif ours:
                touches_open = True
                if self._reach.get(n, 0) & OPPOSITE[bit]:
                    connected = True
        if face.has_ladder:
            # A ladder joins the start by itself; it only has to meet an open edge and keep away from goals.
            if touches_goal is not None:
                reasons.append(Reason("ladder-next-to-goal",
                                      f"a ladder card may not lie next to the goal card at {_cell_name(touches_goal)}",
                                      touches_goal))
            if not touches_open:
                reasons.append(Reason("ladder-not-touching-path",
                                      "a ladder card must meet an open edge of a card already in the maze"))
        elif not connected:
            reasons.append(Reason("not-connected",
                                  "no tunnel of this card meets a tunnel that leads back to the start"))
        return reasons

    # ----------------------------------------------------------------- connectivity

    def _grow(self, cell: Cell, shape: Shape) -> Growth:
        """Follow the tunnels from a card laid at ``cell`` without changing the board."""
        reach = self._reach
        hidden = self._hidden
        new: dict[Cell, int] = {}
        extra: dict[Cell, Shape] = {cell: shape}
        x, y = cell
        frontier = []
        got = 0
        source = shape.face.kind == "start"
        for t in shape.tunnels:
            if t.ladder or source:
                got |= t.edges
                continue
            for bit in EDGE_BITS:
                if t.edges & bit:
                    dx, dy = STEP[bit]
                    n = (x + dx, y + dy)
                    if reach.get(n, 0) & OPPOSITE[bit] and n not in hidden:
                        got |= t.edges
                        break
        if got:
            new[cell] = got
            frontier.append((cell, got))
        revealed: dict[Cell, Shape] = {}
        pending: list[Cell] = []
        gold = False
        while frontier:
            self._spread(frontier, new, extra)
            for goal in sorted(c for c in hidden if c not in revealed and c not in pending):
                edges = self._reaching_edges(goal, reach, new)
                if not edges:
                    continue
                secret = hidden[goal]
                if secret is None:
                    pending.append(goal)
                    continue
                face = self.catalogue.face(secret)
                goal_shape = face.shape(self._opening_rotation(face, edges))
                revealed[goal] = goal_shape
                extra[goal] = goal_shape
                gold = gold or face.gold
                entered = 0
                for t in goal_shape.tunnels:
                    if t.edges & edges:
                        entered |= t.edges
                if entered:
                    new[goal] = entered
                    frontier.append((goal, entered))
        return Growth(new, revealed, pending, gold)

    def _spread(self, frontier: list[tuple[Cell, int]], new: dict[Cell, int], extra: dict[Cell, Shape]) -> None:
        reach = self._reach
        cards = self._cards
        hidden = self._hidden
        while frontier:
            (x, y), edges = frontier.pop()
            for bit in EDGE_BITS:
                if not edges & bit:
                    continue
                dx, dy = STEP[bit]
                n = (x + dx, y + dy)
                shape = extra.get(n)
                if shape is None:
                    if n in hidden:
                        continue
                    shape = cards.get(n)
                    if shape is None:
                        continue
                tunnel = shape.tunnel_at.get(OPPOSITE[bit])
                if tunnel is None:
                    continue
                have = new.get(n)
                if have is None:
                    have = reach.get(n, 0)
                if have & tunnel.edges:
                    continue
                new[n] = have | tunnel.edges
                frontier.append((n, tunnel.edges))

    def _reaching_edges(self, goal: Cell, reach: dict[Cell, int], new: dict[Cell, int]) -> int:
        """Edges of a face-down goal that face a tunnel conducting from the start.

        Stubs need no test of their own: a reached stub was entered by its only edge, so a
        stub that merely touches a goal is never in the reach mask.
        """
        x, y = goal
        edges = 0
        for bit in EDGE_BITS:
            dx, dy = STEP[bit]
            n = (x + dx, y + dy)
            if new.get(n, reach.get(n, 0)) & OPPOSITE[bit]:
                edges |= bit
        return edges

    @staticmethod
    def _opening_rotation(face: Face, reaching: int) -> int:
        """The rotation in which a turned-over goal opens toward most reaching tunnels (upright on ties)."""
        best = max(ROTATIONS, key=lambda r: ((face.shape(r).open & reaching).bit_count(), -r))
        return best

    def _commit(self, growth: Growth) -> None:
        for cell, edges in growth.reach.items():
            self._reach[cell] = self._reach.get(cell, 0) | edges
        for cell, shape in growth.revealed.items():
            self._cards[cell] = shape
            del self._hidden[cell]

    def _rebuild_reach(self) -> None:
        """Recompute reachability from scratch: the start and every ladder are sources."""
        self._reach = {}
        seeds: dict[Cell, int] = {}
        for cell, shape in self._cards.items():
            if cell in self._hidden:
                continue
            for t in shape.tunnels:
                if shape.face.kind == "start" or t.ladder:
                    seeds[cell] = seeds.get(cell, 0) | t.edges
        new = dict(seeds)
        self._spread(list(seeds.items()), new, {})
        self._reach = new

    # ----------------------------------------------------------------- routes (Saboteur 2)

    def _tunnel_graph(self) -> tuple[list[tuple[Cell, Tunnel]], dict[int, set[int]], list[int], list[int]]:
        """Tunnels as nodes, shared open edges as links; sources are the start and ladders."""
        nodes: list[tuple[Cell, Tunnel]] = []
        index: dict[tuple[Cell, int], int] = {}
        for cell, shape in self._cards.items():
            if cell in self._hidden:
                continue
            for t in shape.tunnels:
                index[(cell, t.edges)] = len(nodes)
                nodes.append((cell, t))
        links: dict[int, set[int]] = {i: set() for i in range(len(nodes))}
        for i, ((x, y), t) in enumerate(nodes):
            for bit in EDGE_BITS:
                if t.edges & bit:
                    dx, dy = STEP[bit]
                    n = (x + dx, y + dy)
                    shape = self._cards.get(n)
                    if shape is None or n in self._hidden:
                        continue
                    other = shape.tunnel_at.get(OPPOSITE[bit])
                    if other is not None:
                        links[i].add(index[(n, other.edges)])
        sources = [i for i, (c, t) in enumerate(nodes) if t.ladder or self._cards[c].face.kind == "start"]
        golds = [i for i, (c, t) in enumerate(nodes) if self._cards[c].face.gold]
        return nodes, links, sources, golds

    def gold_door_sets(self) -> set[frozenset[str]]:
        """The door colours of the start-to-gold routes, as the minimal sets that some route passes.

        A route may use any tunnel whose door colour is in the allowed set; trying the four
        subsets of {blue, green} answers "is there a route avoiding X" exactly, without
        listing routes (their number can explode in a maze of crossroads).
        """
        nodes, links, sources, golds = self._tunnel_graph()
        if not golds:
            return set()
        allowed_sets = [frozenset(), frozenset({"blue"}), frozenset({"green"}), frozenset({"blue", "green"})]
        found: set[frozenset[str]] = set()
        for allowed in allowed_sets:
            if any(a < allowed for a in found):
                continue
            seen = {i for i in sources if nodes[i][1].door is None or nodes[i][1].door in allowed}
            stack = list(seen)
            while stack:
                i = stack.pop()
                for j in links[i]:
                    door = nodes[j][1].door
                    if j not in seen and (door is None or door in allowed):
                        seen.add(j)
                        stack.append(j)
            if any(g in seen for g in golds):
                found.add(allowed)
        return found

    def gold_routes(self, limit: int = 1000) -> list[tuple[list[Cell], frozenset[str]]]:
        """Start-to-gold routes (simple paths over tunnels) with the door colours each passes:
        the routes themselves, where ``gold_door_sets`` keeps only their minimal colour sets
        (the tests check one against the other). Capped at ``limit`` because a maze of
        crossroads has very many.
        """
        nodes, links, sources, golds = self._tunnel_graph()
        gold_set = set(golds)
        routes: list[tuple[list[Cell], frozenset[str]]] = []

        def walk(i: int, path: list[int], on_path: set[int]) -> None:
            if len(routes) >= limit:
                return
            if i in gold_set:
                doors = frozenset(nodes[k][1].door for k in path if nodes[k][1].door)
                routes.append(([nodes[k][0] for k in path], doors))
                return
            for j in sorted(links[i]):
                if j not in on_path:
                    on_path.add(j)
                    path.append(j)
                    walk(j, path, on_path)
                    path.pop()
                    on_path.discard(j)

        for s in sources:
            walk(s, [s], {s})
        return routes

    # ----------------------------------------------------------------- formats

    def to_json(self) -> dict:
        """The board in the conformance format: visible cards plus the secrets of face-down goals."""
        return {
            "board": [p.to_dict() for p in sorted(self.placements(), key=lambda p: (p.x, p.y))],
            "hidden_goals": [{"x": c[0], "y": c[1], "face": f} for c, f in sorted(self._hidden.items())],
        }

    @classmethod
    def from_json(cls, doc: dict, catalogue: Catalogue | None = None) -> Board:
        board = cls(catalogue)
        secrets = {}
        for g in doc.get("hidden_goals", ()):
            secrets[(_int(g, "x"), _int(g, "y"))] = g.get("face")
        for entry in doc.get("board", ()):
            p = placement_from_dict(entry)
            if p.face == GOAL_BACK:
                board.add_hidden_goal(p.cell, secrets.get(p.cell))
                continue
            face = board.catalogue.face(p.face)
            if p.rotation not in ROTATIONS:
                raise BoardError(f"{p}: a card in the maze is upright or turned 180°")
            if p.cell in board._cards:
                raise BoardError(f"{_cell_name(p.cell)} is listed twice")
            board._cards[p.cell] = face.shape(p.rotation)
            if face.kind == "goal":
                board._goal_cells.add(p.cell)
        board._rebuild_reach()
        return board

    def __str__(self) -> str:
        from .drawing import draw_board

        return draw_board(self)


def _int(entry: dict, key: str) -> int:
    value = entry.get(key) if isinstance(entry, dict) else None
    if not isinstance(value, int) or isinstance(value, bool):
        raise CatalogueError(f"field {key!r} must be an integer, got {value!r}")
    return value


def placement_from_dict(entry: dict) -> Placement:
    """A placement from JSON, with a clear error for each way it can be wrong."""
    if not isinstance(entry, dict):
        raise CatalogueError(f"a placement is an object with x, y, face, rotation, not {entry!r}")
    face = entry.get("face")
    if not isinstance(face, str):
        raise CatalogueError(f"field 'face' must be a card id, got {face!r}")
    rotation = entry.get("rotation", 0)
    if rotation not in ROTATIONS or isinstance(rotation, bool):
        raise CatalogueError(f"rotation must be 0 or 180, got {rotation!r}")
    return Placement(_int(entry, "x"), _int(entry, "y"), face, rotation)
