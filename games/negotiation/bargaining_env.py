"""``arena/Bargaining-v0`` — the old id of three games, kept working: ``mode="price"``
(**Default**) is ``arena/PriceBargaining-v0``, ``mode="pie"`` is ``arena/PieDivision-v0`` and
``mode="auction"`` is ``arena/Auction-v0``; the other flags are that game's (see
``price_env.py``, ``pie_env.py``, ``auction_env.py``). Prefer the new ids.
"""

from __future__ import annotations

from typing import Any

from arena.env import ArenaEnv
from games.negotiation.bargaining import BargainingEngine


def env(**kwargs: Any) -> ArenaEnv:
    return ArenaEnv(BargainingEngine, **kwargs)  # type: ignore[arg-type]  # an engine factory
