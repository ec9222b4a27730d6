"""Screens of the arena TUI: dashboard, live match, replay, leaderboard, help."""
