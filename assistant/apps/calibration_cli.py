"""Sub-commands for layouts, markers and calibration: ``layout``, ``markers`` and ``calibrate``.

Heavy imports (OpenCV, numpy) happen inside the command functions so ``tablewatch --help`` stays fast.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from assistant.errors import UserError
from assistant.iwari.maps import map_from_json
from assistant.jsonfile import read_json, write_atomic
from assistant.table import game as games
from calibration import camera, colours, layout, render, sheet, trace
from calibration import camera as cam
from calibration.pdf import write_pdf
from vision.locate import locate, rectify_photo


def add_parser(sub) -> None:
    lay = sub.add_parser("layout", help="check, print, rectify and trace board layouts (docs/layouts.md)")
    lsub = lay.add_subparsers(dest="layout_command", metavar="ACTION", required=True)

    p = lsub.add_parser("validate", help="check layout files and list every problem")
    p.add_argument("files", nargs="+", metavar="FILE", help="layout JSON files or built-in names")
    p.set_defaults(func=_validate)

    p = lsub.add_parser("render", help="print a layout at true scale with its markers (.pdf tiled over pages, or .png)")
    p.add_argument("file", metavar="FILE", help="layout JSON file or built-in name, e.g. wendake-map-2p")
    p.add_argument("--out", required=True, help="board.pdf or board.png")
    p.add_argument("--paper", default="a4", choices=["a4", "letter"], help="page size for PDF (default a4)")
    p.add_argument("--dpi", type=int, default=200, help="resolution (default 200)")
    p.set_defaults(func=_render)

    p = lsub.add_parser("list", help="list the built-in layouts")
    p.set_defaults(func=_list)

    p = lsub.add_parser("new", help="start a layout for a retail board with stickers placed as the sticker sheet says")
    p.add_argument("--plan", required=True, help="which board's stickers you used, e.g. wendake-map-2p, wendake-mask")
    p.add_argument("--size", required=True, help="board width x height in mm, measured with a ruler, e.g. 612x408")
    p.add_argument("--name", required=True, help="a name for your board, e.g. my-wendake-map")
    p.add_argument("--out", required=True, help="layout JSON to write")
    p.set_defaults(func=_new)

    p = lsub.add_parser("rectify", help="a photo of a board seen from straight above, for tracing its regions")
    p.add_argument("image")
    p.add_argument("--layout", required=True, help="the board's layout (markers)")
    p.add_argument("--out", required=True, help="PNG to write")
    p.add_argument("--px-per-mm", type=float, default=2.0, help="scale of the output (default 2 px per mm)")
    p.add_argument("--camera", help="camera.json, to remove lens distortion")
    p.set_defaults(func=_rectify)

    p = lsub.add_parser("trace", help="add regions traced on a rectified photo (pixel polygons) to a layout")
    p.add_argument("layout", help="the layout to extend")
    p.add_argument(
        "--traced",
        required=True,
        help='JSON: {"px_per_mm": 2, "regions": [{"id", "kind", "polygon_px", "attributes"}], "adjacency": [...]}',
    )
    p.add_argument("--out", required=True, help="layout JSON to write")
    p.set_defaults(func=_trace)

    p = lsub.add_parser(
        "trace-iwari",
        help="read an Iwari map (layout and map data) from a top-down image of the board (docs/layouts.md)",
        description="Trace an Iwari map from the image tablewatch layout rectify wrote: territories and colours, "
        "tent spaces, totem circles, feat spaces, numbered connections (land or water, mountains), paths and the "
        "road. Writes the board's layout and the map for the game, and lists what to check by hand.",
    )
    p.add_argument("image", metavar="TOP.png", help="the board seen from straight above (tablewatch layout rectify)")
    p.add_argument(
        "--px-per-mm", type=float, required=True, help="the image's scale, as given to layout rectify (3 reads every number)"
    )
    p.add_argument(
        "--layout", required=True, help="the skeleton: the board's name, size and markers (layout new --plan iwari-standard)"
    )
    p.add_argument("--out", required=True, help="the traced layout JSON to write")
    p.add_argument("--map-out", required=True, help="the traced map JSON to write (what tablewatch iwari tally takes as map)")
    p.set_defaults(func=_trace_iwari)

    mk = sub.add_parser("markers", help="printable marker stickers")
    msub = mk.add_subparsers(dest="markers_command", metavar="ACTION", required=True)
    p = msub.add_parser("sheet", help="print every board's markers at true size, with where to stick each one")
    p.add_argument("--out", required=True, help="stickers.pdf")
    p.add_argument("--paper", default="a4", choices=["a4", "letter"])
    p.add_argument("--game", help="only this game's boards (and the colour card), e.g. iwari; default every board")
    p.set_defaults(func=_sheet)

    cal = sub.add_parser("calibrate", help="camera intrinsics and colour profiles (docs/calibration.md)")
    csub = cal.add_subparsers(dest="calibrate_command", metavar="ACTION", required=True)
    p = csub.add_parser("camera", help="camera intrinsics from chessboard or ChArUco photos")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--chessboard", metavar="COLSxROWS", help="inner corners, e.g. 9x6")
    g.add_argument("--charuco", metavar="COLSxROWS", help="squares, e.g. 7x5")
    p.add_argument("--square-mm", type=float, required=True, help="side of one square in mm, measured on the print")
    p.add_argument("--marker-mm", type=float, help="ChArUco marker side in mm (default 0.75 x square)")
    p.add_argument("--dictionary", default="DICT_4X4_100", help="ChArUco dictionary (default DICT_4X4_100)")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--out", required=True, help="camera.json to write")
    p.set_defaults(func=_camera)

    p = csub.add_parser("colours", help="learn the player colours under this light from one photo of the colour card")
    p.add_argument("image", help="photo of the colour card with one piece of each colour on its numbered spot")
    p.add_argument("--colours", help="colour names for spots 1, 2, ... in order (default: the game's colours, --game)")
    p.add_argument("--game", default=games.DEFAULT_GAME, help="the game whose colours the spots hold (default wendake)")
    p.add_argument("--layout", default="colour-card", help="the card's layout (default: built-in colour-card)")
    p.add_argument("--camera", help="camera.json")
    p.add_argument("--out", required=True, help="colours.json to write")
    p.set_defaults(func=_colours)


def _validate(args) -> int:
    from pathlib import Path

    bad = 0
    for name in args.files:
        path = Path(name)
        if path.suffix != ".json" and not path.exists():
            path = layout.LAYOUTS_DIR / f"{name}.json"
        if not path.is_file():
            raise UserError(f"{name}: no such file or built-in layout.")
        try:
            data = read_json(path)
        except UserError as exc:  # not readable, not UTF-8, not JSON, too deep: one line, then the next file
            print(exc)
            bad += 1
            continue
        problems = layout.validate(data)
        if problems:
            bad += 1
            print(f"{name}: {len(problems)} problem(s)")
            for p in problems:
                print(f"  - {p}")
        else:
            print(
                f"{name}: ok ({len(data['regions'])} regions, {len(data['markers'])} markers, {len(data.get('adjacency', []))} borders)"
            )
    return 1 if bad else 0


def _render(args) -> int:
    print(render.write(layout.resolve(args.file), args.out, args.paper, args.dpi))
    return 0


def _list(args) -> int:
    for path in sorted(layout.LAYOUTS_DIR.glob("*.json")):
        data = layout.load(path)
        print(f"{data['name']:20s} {data['size_mm'][0]:.0f} x {data['size_mm'][1]:.0f} mm  {data['title']}")
    return 0


def _new(args) -> int:
    try:
        w, h = (float(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise UserError(f"--size {args.size!r} should be WIDTHxHEIGHT in mm, e.g. 612x408.") from None
    layout.save(sheet.retail_layout(args.plan, w, h, args.name), args.out)
    print(
        f"wrote {args.out}. Next: photograph the board from above, then: tablewatch layout rectify PHOTO --layout {args.out} --out board.png"
    )
    return 0


def _rectify(args) -> int:
    import cv2

    lay = layout.resolve(args.layout)
    frame = cv2.imread(args.image)
    camera = cam.load(args.camera, (frame.shape[1], frame.shape[0])) if args.camera and frame is not None else None
    img, loc = rectify_photo(args.image, lay, args.px_per_mm, camera)
    cv2.imwrite(args.out, img)
    worst = max(loc.residual_mm.values()) if loc.residual_mm else 0.0
    print(
        f"wrote {args.out}: {lay['name']} from above at {args.px_per_mm} px/mm ({img.shape[1]}x{img.shape[0]} px), markers {loc.markers_used}, worst marker residual {worst:.2f} mm"
    )
    for w in loc.warnings:
        print(f"warning: {w}")
    print("Trace regions on it in pixels and save them with: tablewatch layout trace LAYOUT --traced traced.json --out new.json")
    return 0


def _trace(args) -> int:
    lay = layout.resolve(args.layout)
    out = trace.add_traced(lay, trace.load_traced(args.traced))
    layout.save(out, args.out)
    print(f"wrote {args.out}: {len(out['regions'])} regions, all checks passed")
    return 0


# the map trace is made and measured at 2 and 3 px/mm (docs/layouts.md): below 2 the connection numbers go unread,
# and at 1 a band's crop can come out empty, which OpenCV does not survive; above 6 a map image passes 4000 px a side
TRACE_PX_PER_MM = (2.0, 6.0)
SIZE_TOLERANCE = 0.03  # an image more than 3 % off the skeleton's size at --px-per-mm is of another scale or board


def _trace_iwari(args) -> int:
    """``layout trace-iwari``: the map trace (``calibration.trace.trace_iwari``) written as a layout and a map, with
    the counts to compare with the printed map and the problems to check by hand. Exit 0 when both files are
    written, 1 when the traced layout is not valid (the map is written, the problems listed), 2 for bad input."""
    import cv2

    k = args.px_per_mm
    if not TRACE_PX_PER_MM[0] <= k <= TRACE_PX_PER_MM[1]:
        raise UserError(
            f"--px-per-mm {k:g} is not a scale a map is traced at: rectify the photo at 3 (tablewatch layout rectify "
            "... --px-per-mm 3) and give the same number here."
        )
    skeleton = layout.resolve(args.layout)
    if not Path(args.image).is_file():
        raise UserError(f"no image {args.image}: give the PNG that tablewatch layout rectify wrote.")
    image = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if image is None:
        raise UserError(f"cannot read {args.image} as an image: give the PNG that tablewatch layout rectify wrote.")
    w, h = skeleton["size_mm"]
    want = (w * k, h * k)
    got = (image.shape[1], image.shape[0])
    if any(abs(g - x) > SIZE_TOLERANCE * x for g, x in zip(got, want)):
        raise UserError(
            f"{args.image} is {got[0]}x{got[1]} px, but {skeleton['name']} at {k:g} px/mm is {want[0]:.0f}x{want[1]:.0f} px: "
            "give the --px-per-mm and --layout that layout rectify used."
        )
    result = trace.trace_iwari(image, k, skeleton)
    problems = list(result.problems)
    try:
        map_from_json(result.map)
    except UserError as exc:
        problems.append(f"the game refuses the traced map: {exc}")
    write_atomic(args.map_out, json.dumps(result.map, indent=1) + "\n")
    regions = result.layout["regions"]
    kinds = Counter(r["kind"] for r in regions)
    conns = [r["attributes"] for r in regions if r["kind"] == "connection"]
    colours_seen = Counter(r["attributes"]["colour"] for r in regions if r["kind"] == "territory")
    print(
        f"traced {skeleton['name']}: {kinds['territory']} territories ("
        + ", ".join(f"{n} {c}" for c, n in sorted(colours_seen.items()))
        + f"), {kinds['tent_space']} tent spaces, {kinds['totem_circle']} totem circles, {kinds['feat_space']} feat spaces"
    )
    print(
        f"{len(conns)} connections: {sum(c['by'] == 'land' for c in conns)} by land, {sum(c['by'] == 'water' for c in conns)} "
        f"by water, {sum(bool(c['mountain']) for c in conns)} under mountains; {len(result.map['paths'])} paths"
        + (f"; the road: {len(result.map['road'])} tent spaces" if result.map.get("road") else "")
        + f"; map special: {result.map.get('special', 'none')}"
    )
    print("Compare these counts, each territory's colour and each connection's number with the printed map.")
    print(f'wrote {args.map_out}: the map (tablewatch iwari tally takes it as "map": "{args.map_out}")')
    if problems:
        print(f"check by hand ({len(problems)}):")
        for line in problems:
            print(f"  - {line}")
    else:
        print("nothing else to check by hand: every region and connection number was read.")
    try:
        layout.save(result.layout, args.out)
    except UserError as exc:
        print(f"the layout was not written: {str(exc).splitlines()[0]} (the problems above).")
        return 1
    print(f"wrote {args.out}: {len(regions)} regions. See it printed: tablewatch layout render {args.out} --out check.png")
    return 0


def _sheet(args) -> int:
    pages, size = sheet.sticker_pages(args.paper, game=args.game)
    write_pdf(args.out, pages, [size] * len(pages), "Tablewatch marker stickers")
    print(f"wrote {args.out}: {len(pages)} {args.paper.upper()} page(s). Print at 100% (actual size) and check the 100 mm bar.")
    return 0


def _camera(args) -> int:
    kind = "chessboard" if args.chessboard else "charuco"
    pattern = camera.parse_pattern(args.chessboard or args.charuco)
    cal = camera.calibrate(args.images, kind, pattern, args.square_mm, args.marker_mm, args.dictionary)
    camera.save(cal, args.out)
    K = cal.camera_matrix
    print(
        f"{kind} {pattern[0]}x{pattern[1]}, {cal.image_size[0]}x{cal.image_size[1]} px, fx={K[0][0]:.1f} fy={K[1][1]:.1f} cx={K[0][2]:.1f} cy={K[1][2]:.1f}"
    )
    for path in cal.rejected:
        print(f"skipped {path}: pattern not found (blurred, cut off, or a different pattern size)")
    if cal.rms_px > 1.0:
        print(
            "warning: the reprojection error is high (over 1 px). Check --square-mm and the pattern size, and retake blurred photos."
        )
    print(f"wrote {args.out}")
    print(f"rms={cal.rms_px:.4f} images={cal.images_used}/{cal.images_given}")
    return 0


def _colours(args) -> int:
    import cv2

    lay = layout.resolve(args.layout)
    frame = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if frame is None:
        raise UserError(f"cannot read {args.image} as an image.")
    camera = cam.load(args.camera, (frame.shape[1], frame.shape[0])) if args.camera else None
    if camera is not None:
        frame = cv2.undistort(frame, *camera)
    loc = locate(frame, [lay])[0]
    if not loc.found:
        raise UserError("the colour card was not found: " + " ".join(loc.warnings))
    if args.colours is None:
        args.colours = ",".join(games.get(args.game).setup_options()["colours"])
    names = [n.strip() for n in args.colours.split(",") if n.strip()]
    profile = colours.learn(frame, lay, names, loc.homography)
    colours.save(profile, args.out)
    for name, c in profile["colours"].items():
        L, a, b = c["lab_mean"]
        print(f"{name:10s} on {c['spot']}: L={L:.0f} a={a:.0f} b={b:.0f}")
    for w in loc.warnings + profile["warnings"]:
        print(f"warning: {w}")
    print(f"wrote {args.out}. Run this again whenever the light over the table changes.")
    return 0
