"""Training side of the piece detector (issue 4): the net (``net``), the data set read from ``tablewatch synth``
output (``data``), the training loop with ONNX export (``train``), int8 quantisation (``quantize``) and the
held-out evaluation (``evaluate``). torch is imported only here; the runtime is ``vision.detect`` (onnxruntime)."""
