"""The ``tablewatch locate`` command: find boards in a photo and print where they are."""

from __future__ import annotations

from pathlib import Path

from assistant.errors import UserError
from calibration import camera as cam
from calibration import layout as lay
from vision.locate import locate, rectify


def add_parser(sub) -> None:
    p = sub.add_parser(
        "locate",
        help="find boards in a photo by their markers and print homography, pose and quality",
        description="Find each board of the given layouts in IMAGE by its ArUco markers. Prints the homography "
        "(board mm -> image px), the markers seen, the per-marker residual in mm, with --camera the pose, and "
        "warnings when the camera is too far, too oblique, too low or out of focus.",
    )
    p.add_argument("image", help="photo or camera frame (JPEG/PNG)")
    p.add_argument("--layout", action="append", required=True, help="layout JSON file or built-in name (repeat for several boards)")
    p.add_argument("--camera", help="camera.json from 'tablewatch calibrate camera' (adds the pose, removes lens distortion)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--rectified", metavar="PNG", help="also write the first found board seen from above to this file")
    p.add_argument("--px-per-mm", type=float, default=2.0, help="scale of --rectified (default 2)")
    p.set_defaults(func=run)


def run(args) -> int:
    import json

    import cv2


    layouts = [lay.resolve(name) for name in args.layout]
    image = Path(args.image)
    if not image.exists():
        raise UserError(f"image {args.image} not found. Check the path.")
    if image.is_dir():
        raise UserError(f"{args.image} is a folder. Give a JPEG or PNG photo.")
    frame = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if frame is None:
        raise UserError(f"cannot read {args.image} as an image. Give a JPEG or PNG photo.")
    camera = cam.load(args.camera, (frame.shape[1], frame.shape[0])) if args.camera else None
    results = locate(frame, layouts, camera=camera)
    if args.rectified:
        found = [(r, layout) for r, layout in zip(results, layouts) if r.found]
        if not found:
            raise UserError("no board was found, so nothing was rectified. See the warnings above.")
        if not (0.1 <= args.px_per_mm <= 20):
            raise UserError(f"--px-per-mm {args.px_per_mm:g} is out of range; give a scale between 0.1 and 20 (default 2).")
        if Path(args.rectified).suffix.lower() not in (".png", ".jpg", ".jpeg"):
            raise UserError(f"--rectified {args.rectified}: give a file name ending in .png or .jpg.")
        if not cv2.imwrite(args.rectified, rectify(frame, found[0][0].homography, found[0][1], args.px_per_mm, camera)):
            raise UserError(f"could not write {args.rectified}. Check that its folder exists and can be written.")
    if args.json:
        print(json.dumps({"image": args.image, "size": [frame.shape[1], frame.shape[0]], "boards": [r.to_json() for r in results]}, indent=2))
    else:
        for r in results:
            if r.found:
                res = ", ".join(f"{k}: {v:.2f}" for k, v in r.residual_mm.items())
                print(f"{r.board}: found ({r.method}) with markers {r.markers_used}, {r.px_per_mm:.2f} px/mm, sharpness {r.sharpness:.2f}")
                print(f"  residual mm per marker: {res}")
                if r.pose:
                    print(f"  camera tilt {r.pose['tilt_deg']:.1f} deg, distance {r.pose['distance_mm']:.0f} mm")
            else:
                print(f"{r.board}: not found")
            for w in r.warnings:
                print(f"  warning: {w}")
    return 0 if all(r.found for r in results) else 1
