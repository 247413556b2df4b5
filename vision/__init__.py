"""Vision: from camera frames to board geometry (markers, homographies, poses, quality), with no game rules."""
