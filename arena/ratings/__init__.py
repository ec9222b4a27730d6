"""Ratings and other consumers of match results: the leaderboard fit, TrueSkill, tallies,
population measures, per-game measures and pair coverage."""
