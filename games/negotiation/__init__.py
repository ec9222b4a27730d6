"""Negotiation games: ``arena/DealOrNoDeal-v0`` (multi-issue item split),
``arena/PriceBargaining-v0`` (buyer–seller price bargaining), ``arena/PieDivision-v0`` (n-party
pie division) and ``arena/Auction-v0`` (single-item auction with private values); the old id
``arena/Bargaining-v0`` builds one of the last three by ``mode``.

Rules and docs: ``docs/games/negotiation.md``. Engines live in
``dealornodeal.py``, ``price.py``, ``pie.py`` and ``auction.py`` (the last three over the phase
mechanism of ``phases.py``), rule flags in ``*_rules.py``, PettingZoo factories in ``*_env.py``;
the old id in ``bargaining.py``; baseline bots in ``bots.py``; outcome measures in
``measures.py`` and ``measures_extra.py``.
"""
