"""``highcard``: a test-only head-to-head whose best play is known, for self-play acceptance.

Two seats play three rounds at a seeded table; each round both secretly pick ``low`` (1), ``mid`` (2) or
``high`` (3); the higher total plus seeded Gaussian noise (σ = 1.5 per side) wins (+1 / −1).
The panel bot ``mid`` always plays mid. Against it, always ``high`` wins ≈ 92 % of games,
a uniform random pick ≈ 50 %, always ``low`` ≈ 8 %. With the context-sensitive test backend
(:class:`arena.llm.fakes.context.ContextEngine`) a context plays ``high`` at every decision
exactly when its first applicable ``prefer`` directive (style line first, then the quoted
insights) names ``high`` and no ``avoid high`` removes it: that set of contexts is the known
optimum.
"""

from __future__ import annotations

from typing import Any

from arena import registry
from arena.agents.base import Agent
from arena.engine import RulesEngine, RuleSet
from arena.llm.fakes.context import context_directives
from arena.llm.fakes.directives import directed_choice
from arena.types import Action, Decision, Observation, Option, Outcome, PrivateFact

VALUE = {"low": 1, "mid": 2, "high": 3}
OPTIONS = ["low", "mid", "high"]


class HighCardRules(RuleSet):
    rounds: int = 3
    noise: float = 1.5


class HighCardEngine(RulesEngine[HighCardRules]):
    game = "highcard"
    Rules = HighCardRules

    @property
    def n_seats(self) -> int:
        return 2

    def _setup(self) -> None:
        self.round = 1
        self.cards: dict[int, str] = {}
        self.total = [0, 0]
        self.phase = "round_1"
        # a seeded table number every seat sees: the scripted backends hash the transcript, so
        # without it an unguided context would play the same cards at every seed
        self.emit("table", f"Table {self.rng.randint(1, 10**6)} is open.")

    def teams(self) -> dict[int, str]:
        return {0: "p0", 1: "p1"}

    def pending(self) -> list[int]:
        return [] if self._is_over() else [s for s in (0, 1) if s not in self.cards]

    def _is_over(self) -> bool:
        return self.round > self.rules.rounds

    def decision(self, seat: int) -> Decision:
        return Decision(kind="card", options=[Option(id=o) for o in OPTIONS], simultaneous=True)

    def _apply(self, seat: int, action: Action) -> None:
        self.cards[seat] = str(action.choices[0])
        if len(self.cards) == 2:
            for s, card in self.cards.items():
                self.total[s] += VALUE[card]
            self.emit("cards", f"Round {self.round}: {self.cards[0]} vs {self.cards[1]}")
            self.cards = {}
            self.round += 1
            self.phase = f"round_{self.round}" if self.round <= self.rules.rounds else "end"

    def _outcome(self) -> Outcome | None:
        a = self.total[0] + self.rng.gauss(0, self.rules.noise)
        b = self.total[1] + self.rng.gauss(0, self.rules.noise)
        winner = "p0" if a > b else "p1"
        rewards = {s: (1.0 if t == winner else -1.0) for s, t in self.teams().items()}
        return Outcome(label=f"{winner}_wins", winners=(winner,), rewards=rewards)

    def private_facts(self) -> list[PrivateFact]:
        return []

    def state(self, seat: int | None) -> dict[str, Any]:
        return {"round": self.round, "totals": list(self.total)}


class MidBot(Agent):
    kind = "mid"

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        return "mid"


BOTS = {"mid": MidBot}


def register() -> None:
    registry.register_game(
        registry.GameInfo(
            game="highcard",
            env_id="arena/HighCard-v0",
            engine="tests.tournaments.selfplay.selfplay_game:HighCardEngine",
            env="tests.tournaments.selfplay.selfplay_game:env",
            bots="tests.tournaments.selfplay.selfplay_game:BOTS",
            description="test-only head-to-head with a known best context (self-play)",
        )
    )


def env(**rules: Any) -> Any:
    from arena.env import ArenaEnv

    return ArenaEnv(HighCardEngine, **rules)


def always_high(style: str | None, insight_texts: list[str]) -> bool:
    """Whether a context (its style and its insights in block order) plays high at every
    decision under ContextEngine — the known optimum."""
    block = "\n".join(f"{n}. {__import__('json').dumps(t)}" for n, t in enumerate(insight_texts, 1))
    system = (f"Style: {style}\n" if style else "") + f"<insights>\n{block}\n</insights>"
    rules = context_directives(system)
    return all(directed_choice(OPTIONS, rules, pick) == "high" for pick in range(3))


SEED_INSIGHTS = ("Keep calm.", "Avoid low.", "Prefer high.")
STYLES = ("Be brief.", "Prefer mid.", "Avoid high.", "Prefer low.")


def seed_bank(path: Any) -> Any:
    from arena.memory import Bank

    bank = Bank(path)
    if bank.head()[0] == 0:
        for text in SEED_INSIGHTS:
            bank.add("highcard", text)
    bank.close()
    return path


def acceptance_config(url: str, bank: Any, **change: Any) -> dict[str, Any]:
    """The stated budget of the acceptance runs (docs/selfplay.md): the seed context plays
    always-low (style "Prefer low.", no insights); the optimum needs two changes."""
    raw: dict[str, Any] = {
        "name": "hc",
        "game": "highcard",
        "base": {"kind": "llm", "params": {"backend": {"base_url": url, "model": "scripted"}}},
        "seed_context": {"style": "Prefer low.", "bank": str(bank), "insights": "none"},
        "styles": list(STYLES),
        "population": 4,
        "elites": 1,
        "generations": 8,
        "operators": {"reflect": 1, "rewrite": 1, "crossover": 1, "restyle": 1},
        "reflector": "scripted:directives",
        "panel": [{"name": "bot", "kind": "mid"}],
        "units": {"train": 1, "select": 6, "gate": 64, "seats": [0]},
        "metric": "win",
        "repeats": 10,
        "concurrency": 8,
    }
    raw.update(change)
    return raw


def champion_is_optimal(champion: dict[str, Any]) -> bool:
    """Whether a repeat's champion (result.json) is in the known-best set: its insights in
    the order ``select: all`` shows them (effect lower bound, support, age)."""
    from arena.memory.bank import open_bank
    from arena.memory.inject import _evidence_key

    bank = open_bank(champion["bank"])
    snap = bank.at(champion["version"])
    chosen = sorted((snap.get(i) for i in champion["insights"]), key=_evidence_key)
    bank.close()
    return always_high(champion["style"], [i.text for i in chosen])
