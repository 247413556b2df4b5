"""Synthetic table scenes for training the piece detector (issue 4, first half).

The package renders seeded random game positions as camera images with exact ground truth:

| module | owns |
|---|---|
| ``camera.py`` | the table frame, board poses, the pinhole camera with radial distortion, projections, homographies |
| ``pieces.py`` | the game-neutral piece model (``Piece``), the shape library and drawing extruded pieces with shading and shadows |
| ``effects.py`` | domain randomisation in image space: table, light colour and falloff, glare, hands, distractors, blur, noise, JPEG; the table-top, light, camera and clutter of the families |
| ``families.py`` | the families (board art, piece shapes, materials, light, camera, table top), their familiar and foreign (held-out) pools, a table's ``Look`` |
| ``art.py`` | board art by family: the layout's geometry drawn with another palette, texture, lettering, decoration and varnish |
| ``scene.py`` | one scene: boards + pieces -> camera image, rectified board view and the label dict |
| ``wendake.py`` | Wendake's part of a scene: a random game position -> boards and pieces on the layouts |
| ``iwari.py`` | Iwari's part of a scene: a random game position -> tents, totem stacks and cards on the layouts |
| ``writer.py`` | the data-set writer: scene files, manifest, progress bar, worker processes |
| ``recording.py`` | whole recorded games as camera-frame folders (the end-to-end set), for any game with a part below |
| ``placing.py`` | what stays put between a recorded game's frames (``Placer``), and the table signature |
| ``recording_wendake.py``, ``recording_iwari.py`` | a game's part of a recorded game: its seeded game, boards, injected illegal changes |

The label format is documented in docs/synth.md. Runtime code uses numpy, OpenCV and the stdlib only.
"""

FORMAT = "tablewatch-synth/1"

CLASSES = (
    "woman", "hunter", "warrior_standing", "warrior_lying", "canoe", "tribe_disk", "action_marker",
    "leather", "fish", "corn", "beans", "pumpkins", "beaver", "fire_token", "swap_token",
)
COLOURS = ("red", "blue", "green", "yellow", "black", "none")
