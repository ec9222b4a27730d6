"""personas package."""
