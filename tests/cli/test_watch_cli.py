"""`tunnelvision watch` on a filmed game: the placement announced, in the film's own time; on a
source too short to hold anything still, why nothing was."""

import json

import cv2
import numpy as np

from tunnelvision.cli import main
from vision.scenes import table_video

FPS = 2.0  # a slow film: few frames span the tracker's first-view settling and its hold


def film(path, video, still: int) -> None:
    """The video's frames as an MJPG film at FPS, its first and last views held ``still`` frames."""
    frames = [video.frames[0].image] * still + [f.image for f in video.frames] + [video.frames[-1].image] * still
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), FPS, (width, height))
    for image in frames:
        writer.write(image)
    writer.release()


def test_watch_announces_a_placement_of_a_filmed_game_in_the_films_own_time(tmp_path, capsys):
    video = table_video(np.random.default_rng(21), start_cards=8, moves=1, frames_per_move=4, still_frames=2,
                        size=(1280, 720))
    path = tmp_path / "game.avi"
    film(path, video, still=8)
    assert main(["watch", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    events = [json.loads(line) for line in out.splitlines()]
    placed = [e for e in events if e["kind"] == "placed"]
    move = video.placements[0]
    assert [tuple(e["cell"]) for e in placed] == [move.cell]
    assert placed[0]["placement"]["face"] == move.face
    # timed in frames of the film, however fast it was read: a frame's time is a whole
    # number of 1 / FPS, after the card was laid (its frame, past the first view's 8)
    frame = placed[0]["time"] * FPS
    assert frame == round(frame) and frame >= 8 + video.commits[0]
    # what the camera source says, it says in words
    assert "[camera]" in err and "ended" in err and "CaptureEvent" not in err
    assert "nothing was announced" not in err


def test_watch_says_so_when_a_source_ends_before_anything_held_still(tmp_path, capsys):
    """Two photos in a folder are 1/30 s of table: nothing holds still for the tracker's
    0.8 s, and rather than end in silence, watch says why and what settles one photo."""
    image = table_video(np.random.default_rng(21), start_cards=8, moves=1, frames_per_move=4, still_frames=2,
                        size=(1280, 720)).frames[0].image
    for name in ("a.jpg", "b.jpg"):
        cv2.imwrite(str(tmp_path / name), image)
    assert main(["watch", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "nothing was announced" in err and "use check" in err
