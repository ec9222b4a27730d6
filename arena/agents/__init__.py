"""Agents: anything that answers decisions. Built-in kinds: random-legal, per-game rule bots."""

from arena.agents.base import Agent, MatchContext
from arena.agents.random_agent import RandomAgent

__all__ = ["Agent", "MatchContext", "RandomAgent"]
