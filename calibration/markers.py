"""ArUco marker dictionaries and marker images, shared by printing (calibration) and finding (vision).

One name per concept: a dictionary is named as in the layout format ("DICT_4X4_100", ...), and a marker image
is the black code square with a white quiet zone of one code cell around it.
"""

from __future__ import annotations

from functools import lru_cache

from assistant.errors import UserError


@lru_cache(maxsize=None)
def dictionary(name: str):
    """The OpenCV ArUco dictionary called ``name`` (e.g. "DICT_4X4_100")."""
    import cv2

    code = getattr(cv2.aruco, name, None)
    if not name.startswith("DICT_") or code is None:
        raise UserError(f"unknown ArUco dictionary {name!r}. Use one of the DICT_... names, e.g. DICT_4X4_100.")
    return cv2.aruco.getPredefinedDictionary(code)


def cells(name: str) -> int:
    """Code cells across a marker of this dictionary, including its black border (4x4 -> 6)."""
    return dictionary(name).markerSize + 2


def marker_image(name: str, marker_id: int, px: int):
    """A ``px`` x ``px`` grey image of the marker's black square (no quiet zone)."""
    import cv2

    d = dictionary(name)
    if marker_id >= d.bytesList.shape[0]:
        raise UserError(f"marker id {marker_id} does not exist in {name} (ids 0..{d.bytesList.shape[0] - 1}).")
    n = cells(name)
    img = cv2.aruco.generateImageMarker(d, marker_id, n * max(1, round(px / n)))
    return cv2.resize(img, (px, px), interpolation=cv2.INTER_NEAREST)
