"""The card catalogue against the digests (rules/saboteur.md, rules/saboteur2.md)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from importlib import resources

import pytest

from engine.board import Board, Placement
from engine.catalogue import (
    EDGE_BITS,
    ROTATIONS,
    Catalogue,
    CatalogueError,
    default_catalogue,
    edges_mask,
    neighbours,
    parse_catalogue,
    turn_half,
    with_neighbours,
)

CAT = default_catalogue()


def bundled_doc() -> dict:
    return json.loads(resources.files("engine").joinpath("cards.json").read_text("utf-8"))


# Each documented face as drawn upright, straight from the digests' tables:
# id -> (tunnels as letters in N,E,S,W order, copies). Stubs are one-letter tunnels.
BASE_PATH = {
    "cross": (["NESW"], 5),
    "t-nes": (["NES"], 5),
    "t-new": (["NEW"], 5),
    "straight-ns": (["NS"], 4),
    "straight-ew": (["EW"], 3),
    "curve-ne": (["NE"], 5),
    "curve-nw": (["NW"], 4),
    "dead-nesw": (["N", "E", "S", "W"], 1),
    "dead-nes": (["N", "E", "S"], 1),
    "dead-new": (["N", "E", "W"], 1),
    "dead-ns": (["N", "S"], 1),
    "dead-ew": (["E", "W"], 1),
    "dead-ne": (["N", "E"], 1),
    "dead-nw": (["N", "W"], 1),
    "dead-n": (["N"], 1),
    "dead-e": (["E"], 1),
}
BASE_SETUP = {
    "start": (["NESW"], 1),
    "goal-gold": (["NESW"], 1),
    "goal-stone-nw": (["NW"], 1),
    "goal-stone-ne": (["NE"], 1),
}
S2_PATH = {
    "bridge": (["NS", "EW"], 2),
    "double-curve": (["NW", "ES"], 2),
    "ladder-s": (["S"], 1),
    "ladder-e": (["E"], 1),
    "ladder-es": (["ES"], 1),
    "ladder-ne": (["NE"], 1),
    "door-blue-ns": (["NS"], 1),
    "door-blue-ew": (["EW"], 1),
    "door-blue-ne": (["NE"], 1),
    "door-green-ns": (["NS", "E"], 1),
    "door-green-ew": (["EW"], 1),
    "door-green-es": (["ES"], 1),
    "crystal-cross": (["NESW"], 1),
    "crystal-t-esw": (["ESW"], 3),
    "crystal-t-nsw": (["NSW"], 1),
    "crystal-t-esw-n": (["ESW", "N"], 1),
    "crystal-t-nsw-e": (["NSW", "E"], 1),
    "crystal-ew-s": (["EW", "S"], 1),
    "crystal-dead-s": (["S"], 1),
    "crystal-dead-e": (["E"], 1),
}


def tunnel_set(face) -> set[str]:
    return {t.letters for t in face.tunnels}


# ----------------------------------------------------------------- counts


def test_base_game_has_44_path_cards_including_start_and_three_goals():
    base = [f for f in CAT.faces.values() if f.set == "base" and f.kind != "goal-back"]
    assert sum(f.copies for f in base) == 44
    assert Counter(f.kind for f in base for _ in range(f.copies)) == {"path": 40, "start": 1, "goal": 3}


def test_forty_dealt_path_cards_are_31_tunnels_and_9_dead_ends():
    faces = CAT.path_faces(("base",))
    assert sum(f.copies for f in faces) == 40
    dead = [f for f in faces if all(t.is_stub for t in f.tunnels)]
    assert sum(f.copies for f in dead) == 9
    assert sum(f.copies for f in faces if f not in dead) == 31
    assert {f.id for f in faces} == set(BASE_PATH)


@pytest.mark.parametrize("face_id", sorted({**BASE_PATH, **BASE_SETUP, **S2_PATH}))
def test_each_documented_face_has_the_digest_tunnels_and_copies(face_id):
    tunnels, copies = {**BASE_PATH, **BASE_SETUP, **S2_PATH}[face_id]
    face = CAT.face(face_id)
    assert tunnel_set(face) == set(tunnels)
    assert len(face.tunnels) == len(tunnels)
    assert face.copies == copies


def test_straight_counts_are_relative_to_the_start_goal_axis():
    # 3 run along the axis (E-W), 4 across it (N-S)
    assert CAT.face("straight-ew").copies == 3
    assert CAT.face("straight-ns").copies == 4


def test_start_and_goal_kinds_and_gold():
    assert CAT.face("start").kind == "start"
    assert [f.id for f in CAT.faces.values() if f.kind == "goal"] == ["goal-gold", "goal-stone-nw", "goal-stone-ne"]
    assert CAT.face("goal-gold").gold is True
    assert not CAT.face("goal-stone-nw").gold and not CAT.face("goal-stone-ne").gold
    assert [f.id for f in CAT.path_faces(("base", "saboteur2")) if f.gold] == []


def test_24_documented_saboteur2_path_cards():
    faces = [f for f in CAT.path_faces(("saboteur2",))]
    assert {f.id for f in faces} == set(S2_PATH)
    assert sum(f.copies for f in faces) == 24
    assert all(f.set == "saboteur2" for f in faces)
    # path_faces of the base game never includes expansion faces
    assert not {f.id for f in CAT.path_faces(("base",))} & set(S2_PATH)


def test_saboteur2_features_doors_ladders_crystals():
    doors = {f.id: [(t.letters, t.door) for t in f.tunnels] for f in CAT.faces.values() if f.has_door}
    assert doors == {
        "door-blue-ns": [("NS", "blue")],
        "door-blue-ew": [("EW", "blue")],
        "door-blue-ne": [("NE", "blue")],
        # the green door is on the NS tunnel only; the east stub carries no door
        "door-green-ns": [("NS", "green"), ("E", None)],
        "door-green-ew": [("EW", "green")],
        "door-green-es": [("ES", "green")],
    }
    ladders = {f.id: [(t.letters, t.ladder) for t in f.tunnels] for f in CAT.faces.values() if f.has_ladder}
    assert ladders == {"ladder-s": [("S", True)], "ladder-e": [("E", True)],
                       "ladder-es": [("ES", True)], "ladder-ne": [("NE", True)]}
    crystals = {f.id: f.crystals for f in CAT.faces.values() if f.crystals}
    assert crystals == {fid: 1 for fid in S2_PATH if fid.startswith("crystal-")}
    assert sum(f.crystals * f.copies for f in CAT.faces.values()) == 10  # 1+3+1+1+1+1+1+1 crystal cards


def test_27_base_action_cards():
    actions = CAT.action_cards(("base",))
    assert sum(a.copies for a in actions) == 27
    by_id = {a.id: (a.effect, a.copies, a.tools) for a in actions}
    assert by_id == {
        "broken-pickaxe": ("break", 3, ("pickaxe",)),
        "broken-lantern": ("break", 3, ("lantern",)),
        "broken-cart": ("break", 3, ("cart",)),
        "repair-pickaxe": ("repair", 2, ("pickaxe",)),
        "repair-lantern": ("repair", 2, ("lantern",)),
        "repair-cart": ("repair", 2, ("cart",)),
        "repair-pickaxe-lantern": ("repair", 1, ("pickaxe", "lantern")),
        "repair-pickaxe-cart": ("repair", 1, ("pickaxe", "cart")),
        "repair-lantern-cart": ("repair", 1, ("lantern", "cart")),
        "rockfall": ("rockfall", 3, ()),
        "map": ("map", 6, ()),
    }


def test_20_documented_saboteur2_action_cards():
    actions = [a for a in CAT.action_cards(("base", "saboteur2")) if a.set == "saboteur2"]
    assert sum(a.copies for a in actions) == 20
    assert {a.id: (a.effect, a.copies) for a in actions} == {
        "theft": ("theft", 4),
        "hands-off": ("hands-off", 3),
        "swap-hats": ("swap-hats", 2),
        "swap-hands": ("swap-hands", 2),
        "trapped": ("trap", 3),
        "free-at-last": ("free", 4),
        "inspection": ("inspection", 2),
    }


def test_gold_cards_16_ones_8_twos_4_threes_make_44_nuggets():
    gold = dict(CAT.gold_cards["base"])
    assert gold == {1: 16, 2: 8, 3: 4}
    assert sum(v * n for v, n in CAT.gold_cards["base"]) == 44
    assert sum(n for _, n in CAT.gold_cards["base"]) == 28


def test_roles_seven_miners_four_saboteurs_and_fifteen_for_saboteur2():
    assert CAT.roles["base"] == {"miner": 7, "saboteur": 4}
    assert sum(CAT.roles["base"].values()) == 11
    assert CAT.roles["selfish-dwarf"] == {"selfish-dwarf": 1}
    assert CAT.roles["saboteur2"] == {"blue-digger": 4, "green-digger": 4, "boss": 1, "profiteer": 1,
                                      "geologist": 2, "saboteur": 3}
    assert sum(CAT.roles["saboteur2"].values()) == 15


def test_player_table_matches_the_digest():
    table = CAT.tables["base"]
    assert table["players"] == [3, 10]
    digest = {3: (1, 3, 6), 4: (1, 4, 6), 5: (2, 4, 6), 6: (2, 5, 5), 7: (3, 5, 5), 8: (3, 6, 4), 9: (3, 7, 4),
              10: (4, 7, 4)}
    for n, (sab, miners, hand) in digest.items():
        assert (table["saboteurs"][str(n)], table["miners"][str(n)], table["hand"][str(n)]) == (sab, miners, hand)
        assert sab + miners == n + 1  # one more dwarf card than players
    assert CAT.tables["saboteur2"] == {"players": [2, 12], "hand": 6, "set_aside": 10}


# ----------------------------------------------------------------- topology


@pytest.mark.parametrize("face_id", sorted(CAT.faces))
def test_every_face_tunnels_partition_its_open_edges(face_id):
    face = CAT.face(face_id)
    for rotation in ROTATIONS:
        shape = face.shape(rotation)
        union = 0
        for t in shape.tunnels:
            assert t.edges, f"{face_id}: empty tunnel"
            assert not union & t.edges, f"{face_id}: tunnels overlap"
            union |= t.edges
        assert union == shape.open
        # every open edge is owned by exactly the tunnel that holds it, and rock edges by none
        for bit in EDGE_BITS:
            owner = shape.tunnel_at.get(bit)
            if shape.open & bit:
                assert owner is not None and owner.edges & bit
            else:
                assert owner is None


def test_goal_back_has_no_tunnels():
    back = CAT.face("goal-back")
    assert back.kind == "goal-back" and back.tunnels == () and back.shape(0).open == 0


def test_half_turn_maps_n_s_and_e_w():
    assert turn_half(edges_mask("N")) == edges_mask("S")
    assert turn_half(edges_mask("E")) == edges_mask("W")
    assert turn_half(edges_mask("NE")) == edges_mask("SW")
    assert turn_half(edges_mask("NESW")) == edges_mask("NESW")
    assert CAT.face("door-green-ns").shape(180).tunnel_letters == ["NS", "W"]
    assert CAT.face("ladder-ne").shape(180).tunnel_letters == ["SW"]
    assert CAT.face("crystal-t-esw-n").shape(180).tunnel_letters == ["NEW", "S"]


# ----------------------------------------------------------------- faces as data

MYSTERY = {
    "id": "mystery-ns-stub-e",
    "set": "saboteur2",
    "kind": "path",
    "copies": 1,
    "tunnels": ["NS", {"edges": "E"}],
    "crystals": 2,
    "drawn": "an invented undocumented card: north-south tunnel, a stub east, two crystals",
}


def test_with_faces_adds_an_undocumented_card_that_works_on_a_board():
    cat = CAT.with_faces([MYSTERY])
    assert "mystery-ns-stub-e" not in CAT.faces  # the default catalogue is untouched
    face = cat.face("mystery-ns-stub-e")
    assert face.is_path and face.crystals == 2 and tunnel_set(face) == {"NS", "E"}
    assert face in cat.path_faces(("base", "saboteur2"))

    board = Board.standard(["goal-stone-nw", "goal-gold", "goal-stone-ne"], catalogue=cat)
    # north of the start its S edge meets the start: legal, upright and turned
    assert board.check(Placement(0, 1, "mystery-ns-stub-e", 0)).legal
    assert board.check(Placement(0, 1, "mystery-ns-stub-e", 180)).legal
    # east of the start its W edge is rock upright (mismatch), a stub when turned (legal dead end)
    upright = board.check(Placement(1, 0, "mystery-ns-stub-e", 0))
    assert [r.code for r in upright.reasons] == ["edge-mismatch", "not-connected"]
    assert board.check(Placement(1, 0, "mystery-ns-stub-e", 180)).legal
    board.place(Placement(0, 1, "mystery-ns-stub-e", 0))
    assert board.reachable_edges((0, 1)) == edges_mask("NS")  # the stub E is not reached
    assert board.crystals() == 2
    # a card beyond the stub is not connected
    assert [r.code for r in board.check(Placement(1, 1, "straight-ew")).reasons] == ["not-connected"]
    # the board keeps the extended catalogue through JSON
    again = Board.from_json(board.to_json(), catalogue=cat)
    assert again.to_json() == board.to_json()
    assert again.reachable_edges((0, 1)) == edges_mask("NS")


def test_unknown_card_ids_raise_catalogue_error():
    with pytest.raises(CatalogueError, match="unknown card id 'mystery'"):
        CAT.face("mystery")
    with pytest.raises(CatalogueError, match="unknown action card 'dynamite'"):
        CAT.action("dynamite")
    with pytest.raises(CatalogueError, match="unknown card id"):
        Board.standard().check(Placement(1, 0, "mystery"))


def test_bundled_json_parses_to_the_default_catalogue():
    cat = parse_catalogue(json.dumps(bundled_doc()))
    assert set(cat.faces) == set(CAT.faces)
    assert set(cat.actions) == set(CAT.actions)


def _doc_with_face(entry) -> dict:
    doc = bundled_doc()
    doc["faces"].append(entry)
    return doc


MALFORMED = [
    ("not json", "{faces", "not valid JSON"),
    ("no faces", json.dumps({"actions": [], "gold_cards": {}, "roles": {}, "tables": {}}), "'faces'"),
    ("action without effect", None, "'effect'"),
    ("bad edge letter", _doc_with_face({"id": "bad", "tunnels": ["NX"]}), "'NX' is not a set of edges"),
    ("lower-case edges", _doc_with_face({"id": "bad", "tunnels": ["ns"]}), "use the letters N, E, S, W"),
    ("overlapping tunnels", _doc_with_face({"id": "bad", "tunnels": ["NS", "SE"]}),
     "card 'bad': every edge belongs to at most one tunnel"),
    ("empty tunnel", _doc_with_face({"id": "bad", "tunnels": [""]}), "card 'bad'"),
    ("red door", _doc_with_face({"id": "bad", "tunnels": [{"edges": "NS", "door": "red"}]}),
     "a door is blue or green, not 'red'"),
    ("unknown kind", _doc_with_face({"id": "bad", "kind": "wormhole", "tunnels": ["NS"]}),
     "card 'bad': unknown kind 'wormhole'"),
    ("duplicate id", _doc_with_face({"id": "cross", "tunnels": ["NS"]}), "card id 'cross' is listed twice"),
    ("no id", _doc_with_face({"tunnels": ["NS"]}), "a card face needs an 'id'"),
    ("tunnel without edges", _doc_with_face({"id": "bad", "tunnels": [{"door": "blue"}]}), "'edges'"),
]


@pytest.mark.parametrize("label,doc,words", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_catalogue_raises_catalogue_error_with_a_clear_message(label, doc, words):
    if label == "action without effect":
        doc = bundled_doc()
        del doc["actions"][0]["effect"]
    text = doc if isinstance(doc, str) else json.dumps(doc)
    with pytest.raises(CatalogueError) as info:
        parse_catalogue(text)
    assert words in str(info.value)


# Malformed values of the right field but the wrong type: the message should still be a
# CatalogueError that names the card, not a bare ValueError/AttributeError from int() or .get().
WRONG_TYPES = [
    ("copies not a number", {"id": "bad", "tunnels": ["NS"], "copies": "two"}),
    ("crystals not a number", {"id": "bad", "tunnels": ["NS"], "crystals": "many"}),
    ("face entry not an object", "cross"),
    ("tunnels a bare string", {"id": "bad", "tunnels": "NS"}),
]


@pytest.mark.parametrize("label,entry", WRONG_TYPES, ids=[w[0] for w in WRONG_TYPES])
def test_wrongly_typed_face_fields_raise_catalogue_error(label, entry):
    with pytest.raises(CatalogueError):
        Catalogue.from_dict(_doc_with_face(copy.deepcopy(entry)))


def test_malformed_gold_value_raises_catalogue_error():
    doc = bundled_doc()
    doc["gold_cards"]["base"][0]["value"] = "one"
    with pytest.raises(CatalogueError):
        Catalogue.from_dict(doc)


@pytest.mark.parametrize("entry,words", [
    ({"id": "bad", "tunnels": ["NQ"]}, "'NQ' is not a set of edges"),
    ({"id": "bad", "tunnels": ["NE", "EW"]}, "card 'bad': every edge belongs to at most one tunnel"),
    ({"id": "bad", "tunnels": [{"edges": "NS", "door": "purple"}]}, "not 'purple'"),
    ({"tunnels": ["NS"]}, "needs an 'id'"),
    ({"id": "bad", "tunnels": [{"door": "blue"}]}, "bad"),
    ({"id": "bad", "tunnels": [7]}, "bad"),
], ids=["bad letter", "overlap", "purple door", "no id", "tunnel without edges", "tunnel not a string"])
def test_with_faces_rejects_malformed_entries_with_catalogue_error(entry, words):
    with pytest.raises(CatalogueError) as info:
        CAT.with_faces([entry])
    assert words in str(info.value)


def test_a_cells_neighbours_are_the_four_beside_it_in_the_maze_frame():
    # y runs north (rules/saboteur.md): the start's north neighbour is (0, 1)
    assert neighbours((0, 0)) == ((0, 1), (1, 0), (0, -1), (-1, 0))
    assert set(neighbours((8, -2))) == {(8, -1), (9, -2), (8, -3), (7, -2)}


def test_cells_with_their_neighbours_are_each_counted_once():
    # two cells side by side, each the other's neighbour: the pair and the six cells around it, no corner
    assert with_neighbours([(0, 0), (1, 0)]) == {(0, 0), (1, 0), (0, 1), (0, -1), (-1, 0), (1, 1), (1, -1), (2, 0)}
    assert with_neighbours([]) == set()
    assert with_neighbours(c for c in [(0, 0)]) == {(0, 0), (0, 1), (1, 0), (0, -1), (-1, 0)}  # read once
