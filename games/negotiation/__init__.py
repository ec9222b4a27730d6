"""Negotiation games: ``arena/DealOrNoDeal-v0`` (multi-issue item split) and
``arena/Bargaining-v0`` (buyer–seller price bargaining; ``mode="pie"``: n-party pie division;
``mode="auction"``: single-item auction with private values).

Rules: ``../shared/spec/negotiation.md``. Docs: ``docs/games/negotiation.md``. Engines live in
``dealornodeal.py`` and ``bargaining.py``; PettingZoo factories in ``dealornodeal_env.py`` and
``bargaining_env.py``; baseline bots in ``bots.py``; outcome measures in ``measures.py`` and ``measures_extra.py``;
the auction in ``auction.py``.
"""
