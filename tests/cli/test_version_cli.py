"""`tunnelvision --version`: what a bug report (and every benchmark's figures) needs to name."""

import os
import subprocess
import sys

import cv2
import numpy as np
import onnxruntime


def test_version_names_the_libraries_that_decide_what_it_reads_on_one_line():
    done = subprocess.run([sys.executable, "-m", "tunnelvision", "--version"], capture_output=True, text=True,
                          timeout=60, env=os.environ | {"COLUMNS": "40"})
    assert done.returncode == 0, done.stderr
    line, = done.stdout.splitlines()  # not wrapped at a narrow terminal's width
    parts = dict(part.rsplit(" ", 1) for part in line.split(", "))
    assert parts["tunnelvision"][0].isdigit()
    assert parts["OpenCV"].startswith(cv2.__version__)
    assert parts["onnxruntime"] == onnxruntime.__version__
    assert parts["numpy"] == np.__version__
    assert parts["Python"] == "{}.{}.{}".format(*sys.version_info[:3])
