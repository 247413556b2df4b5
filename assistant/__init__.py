"""Tablewatch's game side: the rules engines (one sub-package per game), the tracker and the CLI entry.

Pure Python: nothing here imports OpenCV or onnxruntime.
"""
