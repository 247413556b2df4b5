"""Token reader: which printed face a round cardboard token shows, read again from a close view of each token the
detector found (a woman or a hunter, colour side or grey side).

Why: in a Long House the tokens lie grey side up, where a woman and a hunter differ only by a few millimetres of
ink (a filled figure against a drawn bow). The detector sees the board at 1 px/mm and mixes them up (on the e2e
games it named the grey tokens of a Long House right in 68-77 % of looks); the camera itself resolves the ink, so
each token is rectified again at ``TOKEN_VIEW_PX_PER_MM`` around the detector's position and its printed face is
matched against the *token gallery*: the face of each label (``"<class>:<side>"``) drawn turned every
``360 / n`` degrees. The match is normalised cross-correlation inside the token's inner circle, searched over a
few millimetres of position, so light, the player colour around the face and a detector position a little off do
not change it.

A gallery is an ``.npz`` file: the schematic edition's is drawn from our own piece art (``python -m
models.tokens_gallery``, committed as ``calibration/tokens/wendake-schematic.npz``); an owner's tokens need one
made from photos of their own (``TokenGallery`` from crops with known labels), or a table profile's adaptation
adds the owner's own faces, labelled by the rules (``TokenGallery.extended``, ``tablewatch adapt``). Game-neutral: any class in the
gallery is read. numpy + OpenCV only.

Owns ``TokenGallery`` (load, save, ``read``), ``TokenRead``, ``token_patch`` and ``reread_tokens`` (the
pipeline's step: a detection whose face reads as another class of the gallery with confidence takes that class).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from assistant.errors import UserError
from vision.detect import Detections
from vision.locate import view_matrix

GALLERY_DIR = Path(__file__).resolve().parent.parent / "calibration" / "tokens"
DEFAULT_GALLERY = "wendake-schematic"
TOKEN_VIEW_PX_PER_MM = 2.0  # tokens are rectified again at the gallery's scale
TOKEN_MIN_CAMERA_PX_PER_MM = 0.8  # below this the camera does not resolve a token's ink: the detector's class stands
FACE_MM = 6.5  # half side of the square matched: the token's printed face (its inner circle is 7.5 mm across its radius)
SEARCH_MM = 3.0  # how far off the detector's position the face is looked for
MARGIN_SCALE = 4.0  # a correlation gap of 0.25 between the two best classes is full certainty (confidence 1)
MIN_CONFIDENCE = 0.4  # a read at least this sure replaces the detector's class (gap 0.1; right reads had >= 0.2)
MIN_MATCH = 0.6  # a best correlation under this is no printed face (right reads on the e2e games: 0.9 and more)
# the sides read again in the pipeline: on the colour side the detector tells women from hunters (the productive
# areas of the six e2e games read right at every look: 14,174 of 14,174), on the grey side it does not (the Long
# Houses read right at 770 of 968 looks; 962 with the token reader)
READ_SIDES = ("grey",)


class TokenRead(NamedTuple):
    """One token's read: the best class, its margin over the runner-up class as a confidence (0..1), and
    ``others``: ((class, correlation gap behind the best), ...)."""

    value: str
    confidence: float
    others: tuple = ()


class TokenGallery:
    """Face templates (``templates[k]``, grey, ``px_per_mm``) with their labels ``"<class>:<side>"``."""

    def __init__(self, labels: list[str], templates: np.ndarray, px_per_mm: float, source: str = ""):
        if len(labels) != len(templates):
            raise UserError(f"token gallery: {len(labels)} labels for {len(templates)} templates")
        self.labels = list(labels)
        self.templates = np.asarray(templates, np.float32)
        self.px_per_mm = float(px_per_mm)
        self.source = source
        self.classes = sorted({lab.split(":")[0] for lab in self.labels})

    def extended(self, labels: list[str], templates: np.ndarray, source: str = "") -> "TokenGallery":
        """A new gallery: this one's faces plus ``templates`` (grey, this gallery's size and scale) labelled
        ``labels`` (a table profile's own token faces: ``tablewatch adapt``)."""
        if not len(labels):
            return self
        return TokenGallery(self.labels + list(labels), np.concatenate([self.templates, np.asarray(templates, np.float32)]),
                            self.px_per_mm, source or self.source)

    def save(self, path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, labels=np.array(self.labels), templates=self.templates.astype(np.float16),
                            px_per_mm=self.px_per_mm, source=self.source)

    @classmethod
    def load(cls, path) -> "TokenGallery":
        path = Path(path)
        if not path.is_file():
            raise UserError(f"no token gallery at {path}: build it with 'python -m models.tokens_gallery'")
        try:
            with np.load(path, allow_pickle=False) as z:
                return cls([str(s) for s in z["labels"]], z["templates"], float(z["px_per_mm"]), str(z["source"]))
        except (OSError, KeyError, ValueError) as exc:
            raise UserError(f"the token gallery {path} cannot be read ({exc}): build it again with "
                            "'python -m models.tokens_gallery'") from None

    def read(self, patch: np.ndarray, side: str | None) -> TokenRead | None:
        """The class whose face (on ``side``; any side when None) best matches the grey ``patch`` (a square of
        ``2 * (FACE_MM + SEARCH_MM)`` mm at ``px_per_mm`` around the token); None when the gallery has no face
        for that side, the patch is too small, or no face matches it (``MIN_MATCH``)."""
        import cv2

        patch = np.asarray(patch, np.float32)
        best: dict[str, float] = {}
        for lab, t in zip(self.labels, self.templates):
            c, s = lab.split(":")
            if side is not None and s != side:
                continue
            if patch.shape[0] < t.shape[0] or patch.shape[1] < t.shape[1]:
                return None
            best[c] = max(best.get(c, -1.0), float(cv2.matchTemplate(patch, t, cv2.TM_CCOEFF_NORMED).max()))
        if len(best) < 2 or max(best.values()) < MIN_MATCH:
            return None
        ranked = sorted(best.items(), key=lambda kv: -kv[1])
        gap = ranked[0][1] - ranked[1][1]
        return TokenRead(ranked[0][0], float(min(1.0, gap * MARGIN_SCALE)),
                         tuple((c, round(ranked[0][1] - v, 4)) for c, v in ranked[1:]))


def token_patch(image: np.ndarray, H, x_mm: float, y_mm: float, px_per_mm: float = TOKEN_VIEW_PX_PER_MM,
                half_mm: float = FACE_MM + SEARCH_MM) -> np.ndarray:
    """The grey square of board around (x_mm, y_mm), ``2 * half_mm`` mm a side, seen from straight above at
    ``px_per_mm`` (``H``: board mm -> image pixels, as ``vision.locate.rectify`` takes it)."""
    import cv2

    n = int(round(2 * half_mm * px_per_mm))
    M = view_matrix(px_per_mm, (x_mm - half_mm, y_mm - half_mm)) @ np.linalg.inv(np.asarray(H, np.float64))
    patch = cv2.warpPerspective(image, M, (n, n), flags=cv2.INTER_LINEAR)
    return cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch


def reread_tokens(gallery: TokenGallery, image: np.ndarray, H, detections, sides=None) -> tuple[Detections, int]:
    """The detections (``Detections`` or any iterable of ``Piece``) as a new Detections, in order, with every token of a gallery class (lying on one of ``sides``; any side when None) read
    again from the image: one whose face reads as another class with confidence ``MIN_CONFIDENCE`` or more takes
    that class (its score, colour and side stay). Returns the detections and how many changed class."""
    out, changed = [], 0
    for p in detections:
        if p.cls in gallery.classes and (sides is None or p.side in sides):
            read = gallery.read(token_patch(image, H, p.x_mm, p.y_mm, gallery.px_per_mm), p.side)
            if read is not None and read.value != p.cls and read.confidence >= MIN_CONFIDENCE:
                p = replace(p, cls=read.value)
                changed += 1
        out.append(p)
    return Detections(out), changed


_LOADED: dict[str, TokenGallery] = {}


def load_default() -> TokenGallery:
    """The schematic edition's gallery, loaded once."""
    if DEFAULT_GALLERY not in _LOADED:
        _LOADED[DEFAULT_GALLERY] = TokenGallery.load(GALLERY_DIR / f"{DEFAULT_GALLERY}.npz")
    return _LOADED[DEFAULT_GALLERY]
