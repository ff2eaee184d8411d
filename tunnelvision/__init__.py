"""Tunnel Vision: a camera companion for the card game Saboteur."""

import platform

# The libraries whose versions move what the vision reads: a release of OpenCV changes its
# resampling and edge maths by a hair, and on a hard photo that can change which lattice
# wins (13 of the bench's 200 drawn photos read otherwise under OpenCV 5.1 than under 5.0).
LIBRARIES = {"OpenCV": ("opencv-python-headless", "opencv-python", "opencv-contrib-python-headless",
                        "opencv-contrib-python"),
             "onnxruntime": ("onnxruntime",), "numpy": ("numpy",)}


def library_versions() -> dict[str, str]:
    """Tunnel Vision's version and those of the libraries that decide what it reads, by
    name ("not installed" where none is): for bug reports and next to every benchmark's figures."""
    versions = {"tunnelvision": _installed(("tunnelvision",))}
    versions |= {name: _installed(distributions) for name, distributions in LIBRARIES.items()}
    return versions | {"Python": platform.python_version()}


def versions_text(versions: dict[str, str] | None = None) -> str:
    """``library_versions`` (or these, as it gave them) on one line: "tunnelvision 0.1.0,
    OpenCV 5.1.0.95, ..."."""
    return ", ".join(f"{name} {version}" for name, version in (versions or library_versions()).items())


def _installed(distributions: tuple[str, ...]) -> str:
    # imported here, not with the package: importlib.metadata takes some 17 ms to load, and
    # every command (``rules check`` included) imports the package
    from importlib import metadata

    for distribution in distributions:
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            continue
    return "not installed"
