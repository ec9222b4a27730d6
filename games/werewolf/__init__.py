"""Werewolf / Mafia: hidden roles, night actions, day discussion and votes.

The documentation table lives in :mod:`games.werewolf.env`; the rules in
:mod:`games.werewolf.rules` (engine) and :mod:`games.werewolf.config` (flags and presets).
Importing this package is cheap: nothing heavy is imported here.
"""
