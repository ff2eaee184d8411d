"""The classifier's classes: one per distinguishable placed appearance of a maze card.

A face turned 180° is its own class unless the turn leaves its topology and features
unchanged (a crossroads, a straight, the goal back...), in which case both rotations are
one class reported as rotation 0: the maze frame cannot tell them apart, so neither
should the model. Two more classes let the model say what a cell is when it is no card:
``empty`` (table) and ``other`` (a hand, an action card, a card back, a card laid
crosswise): both are abstentions as far as the maze goes.

Derived from the catalogue, so a face added as data gets its classes without code.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.catalogue import E, N, ROTATIONS, S, W, Catalogue, Face

EMPTY = "empty"
OTHER = "other"
MAZE_KINDS = ("path", "start", "goal", "goal-back")


@dataclass(frozen=True)
class CardClass:
    name: str  # e.g. "t-nes@180"; "cross"; "empty"
    face: str | None  # None for empty/other
    rotation: int
    tunnels: tuple[str, ...]  # in the maze frame, e.g. ("NSW",); stubs are one-edge tunnels

    def to_json(self) -> dict:
        return {"name": self.name, "face": self.face, "rotation": self.rotation, "tunnels": list(self.tunnels)}

    @classmethod
    def from_json(cls, doc: dict) -> CardClass:
        return cls(doc["name"], doc["face"], int(doc["rotation"]), tuple(doc["tunnels"]))


def tunnel_signature(face: Face, rotation: int) -> frozenset:
    """What a card laid so shows of its tunnels: their edges, doors and ladders (faces drawn
    alike, a stone goal and its curve, share one)."""
    return frozenset((t.edges, t.door, t.ladder) for t in face.shape(rotation).tunnels)


def _swap_east_west(mask: int) -> int:
    return (mask & (N | S)) | (E if mask & W else 0) | (W if mask & E else 0)


def mirror_image(catalogue: Catalogue, face: Face, rotation: int) -> tuple[str, int] | None:
    """The face and rotation that a left-right mirror image of ``face`` at ``rotation``
    shows (east and west swapped; a top-bottom mirror is this turned half a turn), or None
    when no face of the catalogue looks like it."""
    want = frozenset((_swap_east_west(t.edges), t.door, t.ladder) for t in face.shape(rotation).tunnels)
    for other in catalogue.faces.values():
        if (other.kind, other.set, other.crystals, other.gold) != (face.kind, face.set, face.crystals, face.gold):
            continue
        for turn in ROTATIONS:
            if tunnel_signature(other, turn) == want:
                return other.id, turn
    return None


def is_half_turn_symmetric(face: Face) -> bool:
    return tunnel_signature(face, 0) == tunnel_signature(face, 180)


def card_classes(catalogue: Catalogue, sets: tuple[str, ...] = ("base", "saboteur2")) -> list[CardClass]:
    classes = []
    for face in catalogue.faces.values():
        if face.kind not in MAZE_KINDS or face.set not in sets + ("custom",):
            continue
        rotations = (0,) if is_half_turn_symmetric(face) else ROTATIONS
        for rotation in rotations:
            name = face.id if rotations == (0,) else f"{face.id}@{rotation}"
            classes.append(CardClass(name, face.id, rotation, tuple(face.shape(rotation).tunnel_letters)))
    classes.append(CardClass(EMPTY, None, 0, ()))
    classes.append(CardClass(OTHER, None, 0, ()))
    return classes


def half_turn_index(classes: list[CardClass]) -> list[int]:
    """For each class, the class of the same card seen turned 180° (itself when the turn changes nothing)."""
    index = {(c.face, c.rotation): i for i, c in enumerate(classes) if c.face is not None}
    out = list(range(len(classes)))
    for i, c in enumerate(classes):
        if c.face is not None and (c.face, (c.rotation + 180) % 360) in index:
            out[i] = index[(c.face, (c.rotation + 180) % 360)]
    return out
