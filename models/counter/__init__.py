"""The resource counter's training side: crops of resource spaces from rendered scenes (``data``) and the small
count classifier trained on them and exported to ONNX (``train``). The runtime reader is ``vision.counts``."""
