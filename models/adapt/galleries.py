"""The owner's own crops for the tile and token galleries (``vision.tiles``, ``vision.tokens``), labelled by the
rules, for one table's adaptation.

Tiles: a tile slot the rules know to be empty, with no piece on it, gives its crop (cut as the tile reader cuts
it, the board rectified at ``TILE_VIEW_PX_PER_MM``), labelled ``"empty"``: the owner's bare slot. The owner's
tile faces are not added: a game shows only some of the tiles, and the owner's crops of those pulled the others,
drawn in the same art, to them (foreign table 101: game 2's tile faces read 88.3 % right with the base gallery,
83.6 % with game 1's faces added, A1-10 taken for A2-10; docs/adapt.md).
Tokens: a grey-side woman or hunter the detector found in a region where the rules expect grey tokens of one
class only gives its face (``vision.tokens.token_patch``, the gallery's size), labelled ``"<class>:grey"``.
At most ``PER_LABEL`` crops per label are kept, spread over the looks (the first, then evenly), so a gallery
stays small and a long game does not make it slow.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from assistant.table.observation import split_key
from vision.locate import rectify, view_matrix
from vision.observe import TILE_VIEW_PX_PER_MM
from vision.tiles import EMPTY, features, slot_crop
from vision.tokens import FACE_MM, TokenGallery, token_patch

PER_LABEL = 8
TOKEN_CLASSES = ("woman", "hunter")


@dataclass
class Crops:
    """Labelled crops (feature vectors or face templates), by label, in the order met."""

    by_label: dict[str, list] = field(default_factory=dict)

    def add(self, label: str, item) -> None:
        self.by_label.setdefault(label, []).append(item)

    def chosen(self) -> tuple[list[str], np.ndarray | None]:
        """(labels, stacked items): at most ``PER_LABEL`` per label, spread evenly over the ones met."""
        labels, items = [], []
        for label in sorted(self.by_label):
            got = self.by_label[label]
            idx = sorted({round(i * (len(got) - 1) / max(1, PER_LABEL - 1)) for i in range(min(PER_LABEL, len(got)))})
            labels += [label] * len(idx)
            items += [got[i] for i in idx]
        return labels, (np.stack(items).astype(np.float32) if items else None)


def add_tiles(crops: Crops, view, px_per_mm: float, layout: dict, expected: dict) -> None:
    """The tile slots of one board view the rules know to be empty, with no piece on them."""
    board = layout["name"]
    slots = [
        r
        for r in layout["regions"]
        if r.get("kind") == "tile_slot"
        and f"{board}/{r['id']}#tile" in expected
        and expected[f"{board}/{r['id']}#tile"] is None
        and expected.get(f"{board}/{r['id']}") == ()
    ]
    if not slots:
        return
    r = TILE_VIEW_PX_PER_MM
    big = rectify(view, view_matrix(px_per_mm), layout, r)
    for reg in slots:
        crops.add(EMPTY, features(slot_crop(big, r, reg["polygon"])))


def add_tokens(
    crops: Crops, gallery: TokenGallery, view, px_per_mm: float, board: str, detections, region_of, expected: dict
) -> None:
    """The grey tokens of one board view (``detections``: the observer's, ``region_of``: point -> region id) in
    regions where the rules expect grey tokens of one class only."""
    H = view_matrix(px_per_mm)
    for p in detections:
        if p.cls not in TOKEN_CLASSES or p.side != "grey":
            continue
        rid = region_of(p.x_mm, p.y_mm)
        want = expected.get(f"{board}/{rid}") if rid is not None else None
        if not isinstance(want, tuple):
            continue
        grey = {split_key(k)[0] for k, _ in want if split_key(k)[2] == "grey" and split_key(k)[0] in TOKEN_CLASSES}
        if len(grey) != 1:
            continue
        face = token_patch(view, H, p.x_mm, p.y_mm, gallery.px_per_mm, FACE_MM)
        if face.shape == gallery.templates.shape[1:]:
            crops.add(f"{grey.pop()}:grey", face.astype(np.float32))
