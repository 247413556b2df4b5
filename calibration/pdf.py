"""A minimal PDF writer: one full-page raster image per page, at an exact physical size.

Enough to print boards and sticker sheets at true scale without a PDF library: each page is an RGB image
(Flate-compressed, lossless so markers stay crisp) drawn over the whole MediaBox, whose size is given in mm
(1 pt = 1/72 inch = 25.4/72 mm).
"""

from __future__ import annotations

import zlib
from pathlib import Path

MM_TO_PT = 72.0 / 25.4


def write_pdf(path: str | Path, pages: list, page_size_mm: list[tuple[float, float]], title: str = "Tablewatch") -> None:
    """Write ``pages`` (BGR uint8 numpy images) as a PDF, page i sized ``page_size_mm[i]`` (width, height)."""
    objects: list[bytes] = []

    def add(obj: bytes) -> int:
        objects.append(obj)
        return len(objects)

    catalog = add(b"")  # filled in below
    pages_obj = add(b"")
    kids = []
    for img, (w_mm, h_mm) in zip(pages, page_size_mm):
        h, w = img.shape[:2]
        rgb = img[:, :, ::-1].tobytes() if img.ndim == 3 else img.tobytes()
        space = b"/DeviceRGB" if img.ndim == 3 else b"/DeviceGray"
        data = zlib.compress(rgb, 6)
        image = add(
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
            % (w, h, space, len(data))
            + data
            + b"\nendstream"
        )
        wp, hp = w_mm * MM_TO_PT, h_mm * MM_TO_PT
        content = b"q %.4f 0 0 %.4f 0 0 cm /Im0 Do Q" % (wp, hp)
        stream = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.4f %.4f] /Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>"
                % (pages_obj, wp, hp, image, stream)
            )
        )
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R /ViewerPreferences << /PrintScaling /None >> >>" % pages_obj
    objects[pages_obj - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    info = add(b"<< /Title (%s) /Producer (Tablewatch) >>" % title.encode("latin-1", "replace").replace(b"(", b"[").replace(b")", b"]"))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, info, xref)
    Path(path).write_bytes(bytes(out))
