"""The card catalogue: every face, action card, gold card and role, read from data.

The faces live in ``cards.json`` beside this module, so a card the digests do not
document (Saboteur 2 has six) is added by writing data, not code. A face's topology is
stored once, as drawn upright; every rotation is derived from it (``Face.shape``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

# Edge bits in the maze frame (rules/saboteur.md): N is the top short edge of an upright card.
N, E, S, W = 1, 2, 4, 8
EDGE_BITS = (N, E, S, W)
EDGE_LETTER = {N: "N", E: "E", S: "S", W: "W"}
EDGE_NAME = {N: "north", E: "east", S: "south", W: "west"}
LETTER_BIT = {"N": N, "E": E, "S": S, "W": W}
OPPOSITE = {N: S, E: W, S: N, W: E}
STEP = {N: (0, 1), E: (1, 0), S: (0, -1), W: (-1, 0)}
ROTATIONS = (0, 180)
DOOR_COLOURS = ("blue", "green")
TOOLS = ("pickaxe", "lantern", "cart")


class CatalogueError(ValueError):
    """The catalogue data, or a card id asked of it, is not valid."""


def neighbours(cell: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """The four cells that share a side with ``cell`` (north, east, south, west)."""
    x, y = cell
    return tuple((x + dx, y + dy) for dx, dy in STEP.values())


def with_neighbours(cells) -> set[tuple[int, int]]:
    """These cells (any iterable, read once) and every cell sharing a side with one of them."""
    cells = set(cells)
    return cells | {n for cell in cells for n in neighbours(cell)}


def edges_mask(letters: str) -> int:
    mask = 0
    for letter in letters:
        if letter not in LETTER_BIT:
            raise CatalogueError(f"{letters!r} is not a set of edges (use the letters N, E, S, W)")
        mask |= LETTER_BIT[letter]
    return mask


def mask_letters(mask: int) -> str:
    return "".join(EDGE_LETTER[bit] for bit in EDGE_BITS if mask & bit)


def turn_half(mask: int) -> int:
    """Rotate an edge mask by 180°: N<->S and E<->W."""
    return ((mask << 2) | (mask >> 2)) & 15


@dataclass(frozen=True)
class Tunnel:
    """A set of open edges joined inside a card; a one-edge tunnel is a stub (a dead end)."""

    edges: int
    door: str | None = None
    ladder: bool = False

    @property
    def is_stub(self) -> bool:
        return self.edges.bit_count() == 1

    @property
    def letters(self) -> str:
        return mask_letters(self.edges)

    def turned(self, rotation: int) -> Tunnel:
        if rotation == 0:
            return self
        return Tunnel(turn_half(self.edges), self.door, self.ladder)


@dataclass(frozen=True, eq=False)
class Shape:
    """One face in one rotation, in the maze frame: what the board's rules look at."""

    face: Face
    rotation: int
    open: int
    tunnels: tuple[Tunnel, ...]
    # edge bit -> the tunnel that owns it; answers "which tunnel does this edge belong to" in O(1)
    tunnel_at: dict[int, Tunnel] = field(repr=False)

    @property
    def tunnel_letters(self) -> list[str]:
        return [t.letters for t in self.tunnels]


@dataclass(frozen=True, eq=False)
class Face:
    id: str
    set: str
    kind: str  # path | start | goal | goal-back
    copies: int
    tunnels: tuple[Tunnel, ...]
    crystals: int = 0
    gold: bool = False
    drawn: str = ""

    @property
    def is_path(self) -> bool:
        return self.kind == "path"

    @property
    def has_ladder(self) -> bool:
        return any(t.ladder for t in self.tunnels)

    @property
    def has_door(self) -> bool:
        return any(t.door for t in self.tunnels)

    def shape(self, rotation: int) -> Shape:
        return self._shapes[rotation]

    def __post_init__(self) -> None:
        shapes = {}
        for rotation in ROTATIONS:
            tunnels = tuple(t.turned(rotation) for t in self.tunnels)
            owner = {bit: t for t in tunnels for bit in EDGE_BITS if t.edges & bit}
            opened = 0
            for t in tunnels:
                opened |= t.edges
            shapes[rotation] = Shape(self, rotation, opened, tunnels, owner)
        object.__setattr__(self, "_shapes", shapes)


@dataclass(frozen=True)
class ActionCard:
    id: str
    set: str
    effect: str  # break | repair | rockfall | map | theft | hands-off | swap-hats | swap-hands | trap | free | inspection
    copies: int
    tools: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class Catalogue:
    faces: dict[str, Face]
    actions: dict[str, ActionCard]
    gold_cards: dict[str, tuple[tuple[int, int], ...]]  # game -> ((value, copies), ...)
    roles: dict[str, dict[str, int]]
    tables: dict[str, dict]

    def face(self, face_id: str) -> Face:
        try:
            return self.faces[face_id]
        except KeyError:
            raise CatalogueError(f"unknown card id {face_id!r}") from None

    def action(self, action_id: str) -> ActionCard:
        try:
            return self.actions[action_id]
        except KeyError:
            raise CatalogueError(f"unknown action card {action_id!r}") from None

    def path_faces(self, sets: tuple[str, ...] = ("base",)) -> list[Face]:
        return [f for f in self.faces.values() if f.is_path and f.set in sets]

    def action_cards(self, sets: tuple[str, ...] = ("base",)) -> list[ActionCard]:
        return [a for a in self.actions.values() if a.set in sets]

    @classmethod
    def from_dict(cls, doc: dict) -> Catalogue:
        try:
            faces = {}
            for entry in doc["faces"]:
                face = _face_from_entry(entry)
                if face.id in faces:
                    raise CatalogueError(f"card id {face.id!r} is listed twice")
                faces[face.id] = face
            actions = {
                a["id"]: ActionCard(a["id"], a["set"], a["effect"], int(a["copies"]), tuple(a.get("tools", ())))
                for a in doc["actions"]
            }
            gold = {game: tuple((int(g["value"]), int(g["copies"])) for g in cards)
                    for game, cards in doc["gold_cards"].items()}
            return cls(faces, actions, gold, doc["roles"], doc["tables"])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, CatalogueError):
                raise
            raise CatalogueError(f"card catalogue entry is missing a field or malformed: {exc}") from None

    def with_faces(self, entries: list[dict]) -> Catalogue:
        """A catalogue extended by extra faces (for instance the undocumented Saboteur 2 cards)."""
        faces = dict(self.faces)
        for entry in entries:
            face = _face_from_entry(entry)
            faces[face.id] = face
        return Catalogue(faces, self.actions, self.gold_cards, self.roles, self.tables)


def _face_from_entry(entry: dict) -> Face:
    try:
        return _parse_face(entry)
    except CatalogueError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        name = entry.get("id") if isinstance(entry, dict) else entry
        raise CatalogueError(f"card face {name!r} is malformed ({exc.__class__.__name__}: {exc})") from None


def _parse_face(entry: dict) -> Face:
    if not isinstance(entry, dict):
        raise CatalogueError(f"a card face is an object with an id and tunnels, not {entry!r}")
    face_id = entry.get("id")
    if not isinstance(face_id, str) or not face_id:
        raise CatalogueError(f"a card face needs an 'id': {entry!r}")
    tunnels = []
    seen = 0
    listed = entry.get("tunnels", [])
    if not isinstance(listed, list):
        raise CatalogueError(f"card {face_id!r}: 'tunnels' is a list such as [\"NS\", \"E\"]")
    for t in listed:
        spec = {"edges": t} if isinstance(t, str) else dict(t)
        mask = edges_mask(spec["edges"])
        if mask & seen or not mask:
            raise CatalogueError(f"card {face_id!r}: every edge belongs to at most one tunnel")
        seen |= mask
        door = spec.get("door")
        if door is not None and door not in DOOR_COLOURS:
            raise CatalogueError(f"card {face_id!r}: a door is blue or green, not {door!r}")
        tunnels.append(Tunnel(mask, door, bool(spec.get("ladder", False))))
    kind = entry.get("kind", "path")
    if kind not in ("path", "start", "goal", "goal-back"):
        raise CatalogueError(f"card {face_id!r}: unknown kind {kind!r}")
    return Face(
        id=face_id,
        set=entry.get("set", "custom"),
        kind=kind,
        copies=int(entry.get("copies", 1)),
        tunnels=tuple(tunnels),
        crystals=int(entry.get("crystals", 0)),
        gold=bool(entry.get("gold", False)),
        drawn=entry.get("drawn", ""),
    )


def parse_catalogue(text: str) -> Catalogue:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"the card catalogue is not valid JSON: {exc}") from None
    return Catalogue.from_dict(doc)


@cache
def default_catalogue() -> Catalogue:
    """The bundled catalogue (base game and the documented Saboteur 2 cards)."""
    return parse_catalogue(resources.files(__package__).joinpath("cards.json").read_text("utf-8"))
