"""Self-play optimisation of an LLM agent's context (prompt variant + memory-bank version).

Pure logic only — config (``config``), candidates (``candidate``), paired units (``units``),
ratings and selection (``select``), the held-out gate (``gate``), operators (``operators``),
budgets (``budget``), reports (``report``) and the context-sensitive test backend
(``engine``). The loop that plays the games is ``tournaments.selfplay``. See docs/selfplay.md.
"""
