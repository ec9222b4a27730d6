"""Self-play: optimise an LLM agent's context (prompt variant + memory-bank version) against an
opponent panel, with honest selection and a held-out gate (docs/selfplay.md).

Everything self-play knows lives here. The loop is :mod:`~tournaments.selfplay.driver`; what
its parts share is :mod:`~tournaments.selfplay.state`. Pure logic: config (``config``),
candidates (``candidate``), paired units (``units``), ratings and selection (``select``), the
held-out gate (``gate``), operators (``operators``), budgets (``budget``), the replay buffer
(``replay_buffer``) and reports (``report``). Playing: one phase as one tournament run
(``phase``), the extra games (``extra_games``), reproduction (``reproduce``), summaries
(``summary``). Around a run: live wiring (``live``), charts (``plots``) and what the screen
shows (``view``). Its faces elsewhere: the ``arena selfplay`` command and the self-play screen.
"""
