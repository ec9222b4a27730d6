"""The Resistance: Avalon for 5–10 players (spec avalon.md). See ``games.avalon.env``."""
