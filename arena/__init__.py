"""The arena core: contracts, registry, agents, the match runner, events, store, and the wings
that stand on them in a declared order (ratings, live, remote, llm, metrics, memory).

Importing ``arena`` registers every known game with PettingZoo (string entry points only), so
``pettingzoo.make("aec", "arena/Werewolf-v0", **rules)`` works right after ``import arena``.
"""

from arena.registry import discover as _discover

__version__ = "0.1.0"

_discover()
