"""Calibration: camera intrinsics, board layouts (geometry as data), colour profiles and printable markers."""
