"""The game-neutral table core: observations, the tracker, events, the event log, the session and the Game registry. Pure Python."""
