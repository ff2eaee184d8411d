"""The shipped card classifier through its onnxruntime front: readings, abstention, errors."""

import json
import shutil
import subprocess
import sys

import cv2
import numpy as np
import pytest

from engine.catalogue import default_catalogue
from vision.augment import Augment, render_abstain, render_cell
from vision.cardart import CardStyle
from vision.classes import card_classes, half_turn_index
from vision.classify import DEFAULT_MODEL, Classifier, ImageError, ModelError, load_image
from vision.observation import Unsure
from vision.read import read_cells

CATALOGUE = default_catalogue()
CAMERA = Augment.camera()


@pytest.fixture(scope="module")
def classifier():
    return Classifier()


def camera_crops(n, seed):
    """Crops of random classes under realistic camera conditions, in styles never trained on."""
    rng = np.random.default_rng(seed)
    classes = [c for c in card_classes(CATALOGUE) if c.face is not None]
    crops, truth = [], []
    for _ in range(n):
        c = classes[int(rng.integers(len(classes)))]
        rotation = c.rotation if "@" in c.name else int(rng.choice([0, 180]))
        crops.append(render_cell(c.face, rotation, rng, augment=CAMERA, style=CardStyle.sample(rng, split="test")))
        truth.append(c.name)
    return crops, truth


def test_metadata_matches_the_catalogue_and_the_model_is_small(classifier):
    assert [c.name for c in classifier.classes] == [c.name for c in card_classes(CATALOGUE)]
    assert DEFAULT_MODEL.stat().st_size <= 2 * 1024 * 1024
    assert classifier.meta["training"]["seed"] == 0 and "heldout_synthetic" in classifier.meta["metrics"]


def test_reads_unseen_styles_under_a_camera(classifier):
    crops, truth = camera_crops(240, seed=11)
    readings = classifier.classify(crops)
    right = sum(r.card.name == t for r, t in zip(readings, truth))
    committed_wrong = sum(r.card.name != t and not r.uncertain for r, t in zip(readings, truth))
    assert right / len(truth) >= 0.95
    # bench/classifier.py measures 0.7 % wrong commits on 8,000 such crops (55): 1.7 expected
    # here, and 3 or fewer in nine samples of 240 out of ten
    assert committed_wrong <= 3


def test_abstains_on_hands_and_action_cards(classifier):
    rng = np.random.default_rng(5)
    crops = [render_abstain(rng, kind, augment=CAMERA)[0] for kind in ("hand", "action", "crosswise") for _ in range(20)]
    readings = classifier.classify(crops)
    assert sum(r.uncertain for r in readings) >= 0.85 * len(readings)
    assert all(r.uncertain or r.card.face is None for r in readings if r.card.name == "other")


def test_an_empty_batch_and_grey_input(classifier):
    assert classifier.classify([]) == []
    reading = classifier.classify([np.full((96, 64), 128, np.uint8)])[0]  # grey, single channel
    assert reading.card.face is None or reading.uncertain


@pytest.mark.parametrize("shape", [(96, 64, 3), (100, 70, 3), (57, 33, 3), (96, 64)])
def test_a_batch_is_prepared_as_each_crop_alone(classifier, shape):
    """Crops of one size are resized in one stacked image: no row of one may bleed into
    the next, whatever the crop size (mixed sizes, and grey crops, too)."""
    rng = np.random.default_rng(9)
    crops = [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(40)]
    alone = np.concatenate([classifier.preprocess([c]) for c in crops])
    assert np.array_equal(classifier.preprocess(crops), alone)
    mixed = crops[:3] + [rng.integers(0, 256, (80, 50, 3), dtype=np.uint8)]
    assert np.array_equal(classifier.preprocess(mixed), np.concatenate([classifier.preprocess([c]) for c in mixed]))


def test_half_turn_of_a_crop_reads_as_the_other_rotation(classifier):
    rng = np.random.default_rng(8)
    crop = render_cell("t-nes", 0, rng, augment=Augment.clean(), style=CardStyle.reference())
    upright, turned = classifier.classify([crop, cv2.rotate(crop, cv2.ROTATE_180)])
    assert (upright.card.name, turned.card.name) == ("t-nes@0", "t-nes@180")
    assert turned.to_json()["tunnels"] == ["NSW"]


def test_a_corrupt_or_missing_model_is_one_sentence(tmp_path):
    broken = tmp_path / "tunnel-cards.onnx"
    broken.write_bytes(b"not an onnx model at all")
    shutil.copy(DEFAULT_MODEL.with_suffix(".json"), broken.with_suffix(".json"))
    with pytest.raises(ModelError, match="cannot be loaded; it may be corrupt"):
        Classifier(broken)
    with pytest.raises(ModelError, match="no model file"):
        Classifier(tmp_path / "missing.onnx")
    shutil.copy(DEFAULT_MODEL, tmp_path / "m.onnx")
    (tmp_path / "m.json").write_text("{half")
    with pytest.raises(ModelError, match="metadata file .* is corrupt"):
        Classifier(tmp_path / "m.onnx")


def test_classify_command_answers_each_image_in_order(tmp_path):
    rng = np.random.default_rng(3)
    paths = []
    for i, (face, rotation) in enumerate((("cross", 0), ("curve-nw", 180))):
        path = tmp_path / f"cell{i}.png"
        cv2.imwrite(str(path), render_cell(face, rotation, rng, augment=Augment.clean(), style=CardStyle.reference()))
        paths.append(str(path))
    (tmp_path / "bad.png").write_bytes(b"garbage")
    cv2.imwrite(str(tmp_path / "sideways.png"), cv2.rotate(cv2.imread(paths[0]), cv2.ROTATE_90_CLOCKWISE))
    args = [paths[0], str(tmp_path / "bad.png"), paths[1], str(tmp_path / "sideways.png")]
    done = subprocess.run([sys.executable, "-m", "tunnelvision", "classify", "--json", *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = [json.loads(x) for x in done.stdout.splitlines()]
    # (whether this one render is read above 0.9 is the model's business, measured by the
    # benchmarks; the contract is the answer's fields, in order)
    assert lines[0]["face"] == "cross" and lines[0]["tunnels"] == ["NESW"] and 0 < lines[0]["confidence"] <= 1
    assert isinstance(lines[0]["uncertain"], bool)
    assert lines[1]["error"].endswith("is not an image that can be read")
    assert (lines[2]["face"], lines[2]["rotation"], lines[2]["tunnels"]) == ("curve-nw", 180, ["ES"])
    # a cell on its side is no cell the model reads (it read one surely as bare table)
    assert lines[3]["error"].endswith("is wider than tall: a maze cell is portrait, so turn the picture upright")


@pytest.mark.parametrize("name, content, sentence", [
    # iPhones take HEIC by default, which OpenCV cannot decode: the sentence says what to do
    ("IMG_0001.HEIC", b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(200),
     "is a HEIC photo, which OpenCV cannot read: export it as JPEG"),
    ("empty.jpg", b"", "is empty: no photo was saved in it"),  # (imdecode asserts on no bytes)
    ("a folder", None, "is a folder, not a photo"),
])
def test_a_photo_that_cannot_be_read_is_one_sentence(tmp_path, name, content, sentence):
    photo = tmp_path / name
    photo.mkdir() if content is None else photo.write_bytes(content)
    with pytest.raises(ImageError, match=sentence):
        load_image(photo)


def test_reading_cells_uses_the_deck_counts(classifier):
    """Two cells read as the one start card: the less sure one is not silently accepted."""
    rng = np.random.default_rng(4)
    clean = Augment.clean()
    crops = {(0, 0): render_cell("start", 0, rng, augment=clean, style=CardStyle.reference()),
             (1, 0): render_cell("straight-ew", 0, rng, augment=clean, style=CardStyle.reference()),
             (3, 3): render_cell("start", 0, rng, augment=CAMERA, style=CardStyle.sample(rng)),
             (2, 0): render_cell(None, 0, rng, augment=clean)}
    cards, uncertain, empty = read_cells(classifier, crops)
    faces = {c.cell: c.face for c in cards}
    assert faces.get((1, 0)) == "straight-ew" and (2, 0) in empty
    assert list(faces.values()).count("start") == 1
    assert any(u.cell in ((0, 0), (3, 3)) and u.reason == "conflict" for u in uncertain)


def read_one(classifier, monkeypatch, name: str, first: float, again: float, verdicts=None):
    """One cell read by a stand-in classifier that reads class ``name`` at ``first``, and at
    ``again`` in every later batch (the shifted and turned crops): the cards, the uncertain
    cells, the empty ones and how many batches were read."""
    index = [c.name for c in classifier.classes].index(name)
    batches = []

    def run(crops):
        batches.append(len(crops))
        sure = first if len(batches) == 1 else again
        probs = np.full((len(crops), len(classifier.classes)), (1 - sure) / (len(classifier.classes) - 1))
        probs[:, index] = sure
        return probs.astype(np.float32), np.tile(classifier.centroids[index], (len(crops), 1))

    monkeypatch.setattr(classifier, "run", run)
    crop = np.zeros((96, 64, 3), np.uint8)
    cards, uncertain, empty = read_cells(classifier, {(1, 0): crop}, recrop=lambda cell, variant: crop,
                                         verdicts=verdicts)
    return cards, uncertain, empty, len(batches)


def read_straight(classifier, monkeypatch, first: float, again: float, verdicts=None):
    cards, uncertain, _, batches = read_one(classifier, monkeypatch, "straight-ns", first, again, verdicts)
    return cards, uncertain, batches


@pytest.mark.parametrize("sure, bare", [(0.7, False), (0.97, True)])
def test_a_cell_read_unsurely_as_bare_table_is_uncertain(classifier, monkeypatch, sure, bare):
    """A palm or a shadow can read like table: a cell read as bare table below the bar, from
    the shifted and turned crops too, may hide a card, and is reported uncertain (a card's
    way back to the start may run under it), not bare."""
    cards, uncertain, empty, _ = read_one(classifier, monkeypatch, "empty", sure, sure)
    assert not cards
    assert (empty, uncertain) == (({(1, 0)}, []) if bare else (set(), [Unsure(1, 0, "maybe-empty")]))


def test_a_cell_read_below_the_confidence_threshold_is_read_again(classifier, monkeypatch):
    """A reading at 0.85 leads its runner-up by far, yet is below the 0.9 the classifier
    commits at: it is read again from the shifted and turned crops, not left uncertain."""
    cards, uncertain, batches = read_straight(classifier, monkeypatch, 0.85, 0.97)
    assert batches == 2 and not uncertain
    assert [(c.cell, c.face) for c in cards] == [((1, 0), "straight-ns")]


@pytest.mark.parametrize("first, again, read_again, kept", [
    (0.95, 0.5, True, False),  # sure, but the shifted and turned crops do not bear it out
    (0.95, 0.9, True, True),  # sure, and borne out
    (0.995, 0.5, False, True),  # surer than needs confirming
])
def test_a_sure_reading_near_the_threshold_must_be_borne_out_by_other_crops(classifier, monkeypatch, first, again,
                                                                            read_again, kept):
    """The classifier's wrong readings are sure ones too: a reading below 0.99 is read again
    from the shifted and turned crops, and left uncertain where those do not give its class
    0.8 on average."""
    cards, uncertain, batches = read_straight(classifier, monkeypatch, first, again)
    assert batches == (2 if read_again else 1)
    if kept:
        assert [(c.cell, c.face) for c in cards] == [((1, 0), "straight-ns")] and not uncertain
    else:
        assert not cards and [(u.x, u.y, u.reason) for u in uncertain] == [(1, 0, "unconfirmed")]


@pytest.mark.parametrize("again", [0.5, 0.9])
def test_a_reading_is_confirmed_once_while_the_caller_keeps_its_verdict(classifier, monkeypatch, again):
    """A still view's frames cut every cell alike: with the verdicts of the frames before
    kept, a reading confirmed (or not) once is not read again, and its verdict stands."""
    verdicts = {}
    first = read_straight(classifier, monkeypatch, 0.95, again, verdicts)
    assert first[2] == 2 and verdicts == {((1, 0), "straight-ns"): again > 0.8}
    assert read_straight(classifier, monkeypatch, 0.95, again, verdicts) == first[:2] + (1,)


def test_goal_cards_are_read_only_on_the_goal_places(classifier):
    """A stone goal turned over and a curve look alike (a boulder, a cart): where each lies
    decides what it can be. The same crops swap places and their readings follow the rules."""
    from engine.board import GOAL_CELLS

    rng = np.random.default_rng(8)
    clean = Augment.clean()
    stone = render_cell("goal-stone-ne", 0, rng, augment=clean, style=CardStyle.reference())
    curve = render_cell("curve-ne", 0, rng, augment=clean, style=CardStyle.reference())
    faces = lambda cards: {c.cell: c.face for c in cards}
    places = frozenset(GOAL_CELLS)
    assert faces(read_cells(classifier, {(8, 2): stone, (3, 1): curve}, goal_places=places)[0]) == {
        (8, 2): "goal-stone-ne", (3, 1): "curve-ne"}
    cards, uncertain, _ = read_cells(classifier, {(3, 1): stone, (8, 2): curve}, goal_places=places)
    assert all(not c.face.startswith("goal") for c in cards if c.cell == (3, 1))
    assert all(c.cell != (8, 2) or c.face.startswith("goal") for c in cards)
    # without the maze frame nothing is ruled out
    assert faces(read_cells(classifier, {(3, 1): stone})[0]) == {(3, 1): "goal-stone-ne"}


@pytest.mark.parametrize("cell, expected, elsewhere", [((3, 1), "curve-ne@0", "goal-stone-ne@0"),
                                                      ((8, 2), "goal-stone-ne@0", "curve-ne@0")])
def test_a_stone_goal_and_its_curve_lend_each_other_their_share_where_only_one_can_lie(
        classifier, monkeypatch, cell, expected, elsewhere):
    """A crop read 0.66 as a card that cannot lie on its cell and 0.28 as its twin with the
    same tunnels that can (a stone goal and a curve, drawn alike): off the goal places it is
    the curve, on a goal place the stone goal, surely (without the twin's share, 0.83 and
    0.87: uncertain)."""
    from engine.board import GOAL_CELLS

    names = [c.name for c in classifier.classes]
    winner = names.index(expected)
    turn = half_turn_index(classifier.classes)

    def run(crops):
        probs = np.full((len(crops), len(names)), 0.02 / (len(names) - 3))
        probs[:, names.index(elsewhere)], probs[:, winner], probs[:, names.index("empty")] = 0.66, 0.28, 0.04
        # the crop's top half is white: turned half a turn (to confirm the reading), it reads
        # as the turned classes
        upright = np.array([crop[0, 0, 0] > 0 for crop in crops])
        probs = np.where(upright[:, None], probs, probs[:, turn])
        return probs.astype(np.float32), np.tile(classifier.centroids[winner], (len(crops), 1))

    monkeypatch.setattr(classifier, "run", run)
    crop = np.zeros((96, 64, 3), np.uint8)
    crop[:48] = 255
    cards, uncertain, _ = read_cells(classifier, {cell: crop}, goal_places=frozenset(GOAL_CELLS))
    assert not uncertain and [(c.face, c.rotation) for c in cards] == [(expected.split("@")[0], 0)]


def test_the_start_is_read_only_on_its_place(classifier):
    from engine.board import GOAL_CELLS, START_CELL

    start = render_cell("start", 0, np.random.default_rng(9), augment=Augment.clean(), style=CardStyle.reference())
    places = {"goal_places": frozenset(GOAL_CELLS), "start_place": START_CELL}
    assert [c.face for c in read_cells(classifier, {START_CELL: start}, **places)[0]] == ["start"]
    # the start's picture a cell off: whatever it is read as there, it is not the start
    assert all(c.face != "start" for c in read_cells(classifier, {(0, -1): start}, **places)[0])


def test_restricting_to_the_games_deck_never_names_a_missing_face(classifier):
    crops, _ = camera_crops(60, seed=12)
    base = {f.id for f in CATALOGUE.faces.values() if f.set == "base"}
    classifier.restrict_to(base)
    try:
        readings = classifier.classify(crops)
    finally:
        classifier.allowed[:] = True
    assert all(r.card.face is None or r.card.face in base for r in readings)
    assert all(abs(float(r.probabilities.sum()) - 1) < 1e-4 for r in readings)


def test_cells_cut_out_of_table_photos_are_labelled_as_the_table_lies(classifier):
    from models.train.data import scene_cells

    images, labels = scene_cells(64, seed=12, workers=1)
    assert images.shape == (64, 96, 64, 3)
    readings = classifier.classify(list(images))
    truth = [classifier.classes[k].name for k in labels]
    committed = [(r.card.name, t) for r, t in zip(readings, truth) if not r.uncertain]
    # a crop cut turned, or labelled with another cell's card, would read wrongly most of the time
    assert len(committed) >= 48 and sum(name == t for name, t in committed) >= len(committed) - 2
    small, same = scene_cells(64, seed=12, size=(40, 60), workers=1)
    assert small.shape == (64, 60, 40, 3) and list(same) == list(labels)
