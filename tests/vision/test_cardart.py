"""The procedural card art is topologically exact, whatever the face and style.

Every property is derived from the catalogue, so a face added as data is covered too.
"""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from engine.catalogue import EDGE_BITS, E, N, S, W, default_catalogue
from vision.cardart import (
    CARD_ASPECT,
    CardStyle,
    draw_action_card,
    draw_card_back,
    draw_face,
    draw_face_rgba,
    render_card,
    _ladder,
    _stroke,
)

SIZE = (120, 185)
CAT = default_catalogue()
MAZE_FACES = [f for f in CAT.faces.values() if f.kind != "goal-back"]
PLAIN = replace(CardStyle.reference(), decoration_prob=0.0)


def luminance(img):
    return img.astype(np.float64) @ np.array([0.114, 0.587, 0.299])


def edge_box(bit, w, h, inset=0.07):
    """A small box on the edge's midpoint, a little inside the card (clear of any border)."""
    b = max(2, int(0.03 * w))
    cx, cy = {
        N: (w // 2, int(inset * h)),
        S: (w // 2, h - 1 - int(inset * h)),
        E: (w - 1 - int(inset * w), h // 2),
        W: (int(inset * w), h // 2),
    }[bit]
    return slice(cy - b, cy + b + 1), slice(cx - b, cx + b + 1)


def edge_point(bit, w, h):
    return {N: (w // 2, 1), S: (w // 2, h - 2), E: (w - 2, h // 2), W: (1, h // 2)}[bit]


def components(mask):
    return cv2.connectedComponents((mask > 127).astype(np.uint8), connectivity=8)[1]


def crossing(a, b):
    """True when two tunnels' edges alternate around the card (so one must pass over)."""
    order = [1 if a & bit else 2 for bit in (N, E, S, W) if (a | b) & bit]
    return sum(order[i] != order[(i + 1) % len(order)] for i in range(len(order))) >= 4


@pytest.mark.parametrize("rotation", [0, 180])
@pytest.mark.parametrize("face", MAZE_FACES, ids=lambda f: f.id)
def test_open_edges_show_tunnel_and_rock_edges_show_rock(face, rotation):
    img = draw_face(face, rotation, CardStyle.reference(), np.random.default_rng(7), SIZE)
    lum = luminance(img)
    shape = face.shape(rotation)
    levels = {bit: lum[edge_box(bit, *SIZE)].mean() for bit in EDGE_BITS}
    for bit, level in levels.items():
        if shape.open & bit:
            assert level > 220, f"{face.id}@{rotation}: open edge {bit} is not tunnel-bright ({level:.0f})"
        else:
            assert level < 210, f"{face.id}@{rotation}: rock edge {bit} looks open ({level:.0f})"
            assert all(level < v - 20 for b, v in levels.items() if shape.open & b)


@pytest.mark.parametrize("face_id", ["cross", "t-nes", "straight-ew", "curve-ne", "dead-ns"])
def test_props_never_close_an_opening(face_id):
    """Carts, boots and tools may stand over a wall's edge, never on an edge's midpoint."""
    face = CAT.faces[face_id]
    crowded = replace(CardStyle.reference(), decoration_prob=1.0)
    warm = 0
    for seed in range(12):
        img = draw_face(face, 0, crowded, np.random.default_rng(seed), SIZE)
        lum = luminance(img)
        assert all(lum[edge_box(bit, *SIZE)].mean() > 220 for bit in EDGE_BITS if face.shape(0).open & bit)
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        warm += int(((hsv[..., 1] > 120) & ((hsv[..., 0] < 20) | (hsv[..., 0] > 160))).sum() > 10)
    assert warm >= 3  # red wheels, boots: the props are really drawn


@pytest.mark.parametrize("face", MAZE_FACES, ids=lambda f: f.id)
def test_tunnel_masks_follow_the_catalogue_topology(face):
    """Open edges of one tunnel are joined by its floor, different tunnels never touch,
    and a tunnel passing under a bridge is visibly interrupted by the upper one."""
    for rotation in (0, 180):
        r = render_card(face, rotation, PLAIN, np.random.default_rng(3), SIZE)
        tunnels = face.shape(rotation).tunnels
        assert len(r.tunnels) == len(tunnels)
        union = components(np.maximum.reduce(r.tunnels))
        label = {}
        for t in tunnels:
            for bit in EDGE_BITS:
                if t.edges & bit:
                    x, y = edge_point(bit, *SIZE)
                    label[bit] = union[y, x]
                    assert label[bit] != 0, f"{face.id}@{rotation}: edge {bit} has no floor at its midpoint"
        for t in tunnels:
            under = any(o is not t and crossing(t.edges, o.edges) for o in tunnels)
            mine = [label[b] for b in EDGE_BITS if t.edges & b]
            if not under and not face.has_door and not face.has_ladder:
                assert len(set(mine)) == 1, f"{face.id}@{rotation}: tunnel {t.letters} is broken"
            for o in tunnels:
                if o is t:
                    continue
                theirs = {label[b] for b in EDGE_BITS if o.edges & b}
                assert not theirs & set(mine), f"{face.id}@{rotation}: tunnels {t.letters} and {o.letters} join"


def test_bridge_lower_tunnel_is_cut_in_two_at_the_centre():
    bridge = CAT.face("bridge")
    for seed in range(6):
        r = render_card(bridge, 0, PLAIN, np.random.default_rng(seed), SIZE)
        lab = components(np.maximum.reduce(r.tunnels))
        n, e, s, w = (lab[y, x] for x, y in (edge_point(b, *SIZE) for b in (N, E, S, W)))
        ns_joined, ew_joined = n == s, e == w
        # exactly one of the two passes over; the other's halves are separate floors
        assert ns_joined != ew_joined
        assert len({n, e, s, w}) == 3
        centre = lab[SIZE[1] // 2, SIZE[0] // 2]
        assert centre in ((n,) if ns_joined else (e,))


def test_tunnel_masks_are_what_the_picture_shows():
    for face in MAZE_FACES:
        r = render_card(face, 0, PLAIN, np.random.default_rng(11), SIZE)
        lum = luminance(r.image)
        floor = np.maximum.reduce(r.tunnels) > 127
        rock = ~cv2.dilate(floor.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool) & (r.alpha > 0)
        assert np.median(lum[floor]) - np.median(lum[rock]) > 40, face.id


def test_stubs_end_inside_the_card_short_of_its_centre():
    w, h = SIZE
    for face in MAZE_FACES:
        for rotation in (0, 180):
            for seed in range(3):
                r = render_card(face, rotation, PLAIN, np.random.default_rng(seed), SIZE)
                for t, mask in zip(face.shape(rotation).tunnels, r.tunnels):
                    if not t.is_stub:
                        continue
                    ys, xs = np.nonzero(mask > 127)
                    reach = {N: ys.max() / h, S: 1 - ys.min() / h, W: xs.max() / w, E: 1 - xs.min() / w}[t.edges]
                    assert 0.1 < reach < 0.45, f"{face.id}@{rotation}: stub {t.letters} reaches {reach:.2f}"
                if all(t.is_stub for t in face.tunnels):
                    cy, cx, b = h // 2, w // 2, w // 20
                    assert not (np.maximum.reduce(r.tunnels)[cy - b:cy + b, cx - b:cx + b] > 127).any(), face.id


@pytest.mark.parametrize("width", [0.25, 0.32, 0.40])
def test_tunnels_meet_edges_at_the_midpoint_with_the_style_width(width):
    w, h = SIZE
    style = replace(PLAIN, tunnel_width=width)
    for face in MAZE_FACES:
        r = render_card(face, 0, style, np.random.default_rng(5), SIZE)
        floor = np.maximum.reduce(r.tunnels) > 127
        for bit in EDGE_BITS:
            if not face.shape(0).open & bit:
                continue
            line = {N: floor[2, :], S: floor[h - 3, :], W: floor[:, 2], E: floor[:, w - 3]}[bit]
            idx = np.flatnonzero(line)
            centre = (idx.min() + idx.max()) / 2 / len(line)
            span = (idx.max() - idx.min() + 1) / w
            assert abs(centre - 0.5) < 0.03, f"{face.id}: edge {bit} opening is off-centre ({centre:.3f})"
            assert abs(span - width) < 0.05, f"{face.id}: edge {bit} opening is {span:.2f} wide, not {width}"


def test_separate_tunnels_keep_a_wall_between_them():
    w = SIZE[0]
    gap = int(0.05 * w)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * gap + 1, 2 * gap + 1))
    for face in MAZE_FACES:
        if len(face.tunnels) < 2:
            continue
        for seed in range(3):
            r = render_card(face, 0, replace(PLAIN, waviness=1.0), np.random.default_rng(seed), SIZE)
            for i, a in enumerate(face.tunnels):
                for j, b in enumerate(face.tunnels):
                    if i < j and not crossing(a.edges, b.edges):
                        near = cv2.dilate((r.tunnels[i] > 127).astype(np.uint8), kernel) & (r.tunnels[j] > 127)
                        assert not near.any(), f"{face.id}: {a.letters} and {b.letters} are under {gap}px apart"


@pytest.mark.parametrize("face", MAZE_FACES + [CAT.face("goal-back")], ids=lambda f: f.id)
def test_rotation_180_is_the_upright_card_turned_half_a_turn(face):
    up = draw_face(face, 0, PLAIN, np.random.default_rng(21), SIZE)
    down = draw_face(face, 180, PLAIN, np.random.default_rng(21), SIZE)
    assert np.array_equal(down, up[::-1, ::-1])
    if face.kind != "goal-back" and face.shape(0).open != face.shape(180).open:
        assert not np.array_equal(up, down)


def test_output_is_a_portrait_uint8_bgr_card_of_the_asked_size():
    face = CAT.face("t-nes")
    for size in [(57, 88), SIZE, (200, 309)]:
        for img in (draw_face(face, 0, CardStyle.reference(), np.random.default_rng(0), size),
                    draw_action_card(np.random.default_rng(0), size),
                    draw_card_back(np.random.default_rng(0), size)):
            assert img.dtype == np.uint8 and img.shape == (size[1], size[0], 3)
    assert abs(SIZE[1] / SIZE[0] - CARD_ASPECT) < 0.01
    rgba = draw_face_rgba(face, 0, CardStyle.reference(), np.random.default_rng(0), SIZE)
    assert rgba.shape == (SIZE[1], SIZE[0], 4)
    assert rgba[0, 0, 3] == 0 and rgba[SIZE[1] // 2, SIZE[0] // 2, 3] == 255  # rounded corners


def test_same_seed_same_card_other_seed_other_card():
    face = CAT.face("crystal-t-esw-n")
    rng_style = np.random.default_rng(4)
    style = CardStyle.sample(rng_style)
    a = draw_face(face, 0, style, np.random.default_rng(1), SIZE)
    b = draw_face(face, 0, style, np.random.default_rng(1), SIZE)
    c = draw_face(face, 0, style, np.random.default_rng(2), SIZE)
    assert np.array_equal(a, b)
    assert np.abs(a.astype(int) - c).mean() > 3
    for draw in (draw_action_card, draw_card_back):
        assert np.array_equal(draw(np.random.default_rng(9), SIZE), draw(np.random.default_rng(9), SIZE))
        assert not np.array_equal(draw(np.random.default_rng(9), SIZE), draw(np.random.default_rng(10), SIZE))


def test_rendering_does_not_depend_on_what_was_rendered_before():
    face = CAT.face("double-curve")
    first = draw_face(face, 0, PLAIN, np.random.default_rng(5), (96, 148))
    for seed in range(5):  # fills caches in between
        draw_face(CAT.face("cross"), 180, CardStyle.sample(np.random.default_rng(seed)), np.random.default_rng(seed),
                  (96, 148))
    assert np.array_equal(first, draw_face(face, 0, PLAIN, np.random.default_rng(5), (96, 148)))


def test_a_face_added_as_data_renders_with_its_topology():
    cat = CAT.with_faces([
        {"id": "mystery-ne-s-w", "set": "saboteur2", "tunnels": ["NE", "S", {"edges": "W", "ladder": True}],
         "crystals": 2},
        {"id": "mystery-door-ew", "tunnels": [{"edges": "EW", "door": "green"}, "N"]},
    ])
    for fid in ("mystery-ne-s-w", "mystery-door-ew"):
        face = cat.face(fid)
        for rotation in (0, 180):
            r = render_card(face, rotation, CardStyle.reference(), np.random.default_rng(2), SIZE)
            lum = luminance(r.image)
            shape = face.shape(rotation)
            for bit in EDGE_BITS:
                level = lum[edge_box(bit, *SIZE)].mean()
                assert (level > 220) if shape.open & bit else (level < 210), (fid, rotation, bit, level)
            lab = components(np.maximum.reduce(r.tunnels))
            ids = [{lab[edge_point(b, *SIZE)[::-1]] for b in EDGE_BITS if t.edges & b} for t in shape.tunnels]
            for i in range(len(ids)):
                for j in range(i + 1, len(ids)):
                    assert not ids[i] & ids[j], fid


def test_sampled_styles_are_wide_but_keep_tunnels_brighter_than_rock():
    rng = np.random.default_rng(0)
    styles = [CardStyle.sample(rng) for _ in range(400)]
    widths = [s.tunnel_width for s in styles]
    assert min(widths) >= 0.25 and max(widths) <= 0.40 and max(widths) - min(widths) > 0.12
    assert {s.border for s in styles} == {True, False}
    assert np.ptp([s.rock_lightness for s in styles]) > 0.2
    assert np.ptp([s.print_contrast for s in styles]) > 0.3
    cross, dead = CAT.face("t-nes"), CAT.face("t-new")
    for style in styles[:40]:
        for face in (cross, dead):
            img = draw_face(face, 0, style, np.random.default_rng(1), SIZE)
            lum = luminance(img)
            shape = face.shape(0)
            open_ = min(lum[edge_box(b, *SIZE, inset=0.1)].mean() for b in EDGE_BITS if shape.open & b)
            rock = max(lum[edge_box(b, *SIZE, inset=0.1)].mean() for b in EDGE_BITS if not shape.open & b)
            assert open_ - rock > 12, (style, face.id)


def test_goal_back_and_common_back_are_warm_and_unlike_maze_cards():
    back = CAT.face("goal-back")
    for seed in range(3):
        for img in (draw_face(back, 0, CardStyle.sample(np.random.default_rng(seed)), np.random.default_rng(seed), SIZE),
                    draw_card_back(np.random.default_rng(seed), SIZE)):
            b, g, r = img[20:-20, 20:-20].reshape(-1, 3).mean(0)
            assert r > b + 30, "a back is brown/orange"
        cross = draw_face(CAT.face("cross"), 0, CardStyle.reference(), np.random.default_rng(seed), SIZE)
        b, g, r = cross.reshape(-1, 3).mean(0)
        assert abs(r - b) < 25


def test_start_and_gold_show_their_features_in_the_middle():
    w, h = SIZE
    mid = (slice(int(0.3 * h), int(0.7 * h)), slice(int(0.2 * w), int(0.8 * w)))
    gold = draw_face(CAT.face("goal-gold"), 0, PLAIN, np.random.default_rng(0), SIZE)[mid].reshape(-1, 3).astype(int)
    assert ((gold[:, 2] - gold[:, 0]) > 100).mean() > 0.05  # a golden nugget
    plain = draw_face(CAT.face("cross"), 0, PLAIN, np.random.default_rng(0), SIZE)[mid].reshape(-1, 3).astype(int)
    assert ((plain[:, 2] - plain[:, 0]) > 100).mean() < 0.005
    start = draw_face(CAT.face("start"), 0, PLAIN, np.random.default_rng(0), SIZE)[mid]
    assert (luminance(start) < 80).mean() > 0.02  # the dark hole the ladder comes out of


def gem_components(img):
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    # saturated well beyond the card's own rock (on a tinted rock a gem's glow alone is as
    # saturated as a gem on grey rock, and would join two gems into one component)
    floor = max(110.0, float(np.median(hsv[..., 1])) + 90)
    gem = ((hsv[..., 1] > floor) & (hsv[..., 2] > 80)).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(gem, connectivity=8)
    return [a for a in stats[1:, cv2.CC_STAT_AREA] if a >= 12]


def test_every_crystal_in_the_data_is_drawn():
    cat = CAT.with_faces([{"id": "two-crystals-ns", "tunnels": ["NS"], "crystals": 2},
                          {"id": "three-crystals-dead-w", "tunnels": ["W"], "crystals": 3}])
    for face in [f for f in cat.faces.values() if f.kind == "path"]:
        for seed in range(6):
            rng = np.random.default_rng(seed)
            style = PLAIN if seed < 2 else replace(CardStyle.sample(rng), decoration_prob=0.0)
            img = draw_face(face, int(rng.choice([0, 180])), style, rng, SIZE)
            gems = gem_components(img)
            bridge = any(crossing(a.edges, b.edges) for a in face.tunnels for b in face.tunnels)
            if face.has_door or face.has_ladder or bridge:  # coloured wood and paint of their own
                continue
            if face.crystals:
                assert len(gems) >= face.crystals, f"{face.id}: {len(gems)} of {face.crystals} crystals drawn"
            else:
                assert not gems, f"{face.id} shows a crystal it does not have"


def test_train_and_test_style_splits_are_disjoint_and_each_still_wide():
    rng = np.random.default_rng(0)
    train = [CardStyle.sample(rng, split="train") for _ in range(300)]
    test = [CardStyle.sample(rng, split="test") for _ in range(300)]
    assert not any(s.held_out() for s in train) and all(s.held_out() for s in test)
    for styles in (train, test):
        assert np.ptp([s.tunnel_width for s in styles]) > 0.12
        assert np.ptp([s.rock_lightness for s in styles]) > 0.2
    mixed = [CardStyle.sample(rng).held_out() for _ in range(400)]
    assert 0.35 < np.mean(mixed) < 0.65
    with pytest.raises(ValueError):
        CardStyle.sample(rng, split="validation")


def test_strokes_keep_their_share_of_the_card_at_any_size():
    """A ladder (the start card's mark) drawn for a card 224 pixels wide and brought down
    carries nearly the ink it carries drawn 80 wide: strokes of a fixed pixel or two had
    left it at three fifths, faint enough that the start read as a crossroads."""
    def ink(w):
        h = round(w * CARD_ASPECT)
        img = np.full((h, w, 3), 255, np.uint8)
        _ladder(img, (0.3 * w, 0.7 * h), (0.7 * w, 0.3 * h), 0.11 * w, _stroke(w))
        return 255 - cv2.resize(img, (50, 77), interpolation=cv2.INTER_AREA).mean()

    assert ink(224) > 0.85 * ink(80)
    assert ink(160) > 0.85 * ink(80)
