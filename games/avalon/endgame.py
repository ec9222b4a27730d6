"""Quest resolution, Lady of the Lake, assassination, belief checkpoints and the end."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.events import Visibility
from arena.types import Outcome
from games.avalon.config import ROLE_TITLES, fails_needed

if TYPE_CHECKING:
    from arena.engine import RulesEngine
    from games.avalon.config import AvalonRules

    _EngineBase = RulesEngine[AvalonRules]
else:
    _EngineBase = object  # a plain mixin at runtime; the engine supplies RulesEngine

EVIL_LABELS = {
    "evil_win_quests": "three quests failed",
    "evil_win_hammer": "the fifth proposal of a quest was rejected",
    "evil_win_assassination": "the Assassin named Merlin",
}


class AvalonEndgame(_EngineBase):
    """Mixed into AvalonEngine: everything from the quest cards to the outcome."""

    # attributes set by AvalonEngine._setup
    _names: list[str]
    role_of: list[str]
    side: list[str]
    quests: list[dict[str, Any]]
    buffer: dict[int, str]
    team: list[int]
    quest: int
    attempt: int
    side_known: list[set[int]]
    role_known: list[set[int]]
    speakers: list[int]
    result: str | None
    after_belief: str
    checkpoint: str
    lady_holder: int | None
    lady_held: list[int]
    lady_results: list[dict[str, Any]]
    target: int | None
    revealed: bool

    if TYPE_CHECKING:
        # provided by AvalonEngine
        @property
        def assassin(self) -> int: ...
        def _start_round(self) -> None: ...

    def _enter_quest(self) -> None:
        self.phase, self.buffer = "quest", {}

    def _resolve_quest(self: Any) -> None:
        cards = {s: self.buffer[s] for s in sorted(self.buffer)}
        self.buffer = {}
        fails = sum(c == "fail" for c in cards.values())
        need = fails_needed(self.n_seats, self.quest)
        result = "fail" if fails >= need else "success"
        self.emit("quest_cards", "", visibility=Visibility.god(), quest=self.quest,
                  cards={str(s): c for s, c in cards.items()})  # fmt: skip
        self.emit(
            "quest_result",
            f"Quest {self.quest} {'FAILED' if result == 'fail' else 'succeeded'} "
            f"with {fails} fail card(s) (team {[self._names[s] for s in self.team]}).",
            quest=self.quest,
            team=list(self.team),
            fails=fails,
            fails_needed=need,
            result=result,
        )
        self.quests.append(
            {"quest": self.quest, "team": list(self.team), "fails": fails, "result": result}
        )
        if self.count("fail") == 3:
            self._decide("evil_win_quests")
        elif self.rules.belief_reports == "after_each_quest":
            self._enter_belief(f"quest_{self.quest}", then="post_quest")
        else:
            self._post_quest()

    def count(self, result: str) -> int:
        return sum(q["result"] == result for q in self.quests)

    def _post_quest(self) -> None:
        if self.count("success") == 3:
            if "merlin" not in self.role_of:
                self._decide("good_win")
            elif self.rules.assassination_conference == "evil_team":
                self._enter_conference()
            else:
                self._enter_assassinate()
        elif self.lady_holder is not None and self.quest in (2, 3, 4):
            self.phase = "lady"
        else:
            self._next_quest()

    def _next_quest(self) -> None:
        self.quest, self.attempt = self.quest + 1, 1
        self._start_round()

    def _lady(self, holder: int, target: int) -> None:
        side = self.side[target]
        self.emit("lady", f"{self._names[holder]} examines {self._names[target]} with the Lady.",
                  actor=holder, holder=holder, target=target)  # fmt: skip
        self.emit("lady_result", f"{self._names[target]} is {side}.", actor=holder,
                  visibility=Visibility.private(holder), target=target, side=side)  # fmt: skip
        self.side_known[target].add(holder)
        self.lady_results.append({"holder": holder, "target": target, "side": side})
        self.lady_holder = target
        self.lady_held.append(target)
        self._next_quest()

    def _enter_conference(self) -> None:
        self.phase = "confer"
        evil = [s for s in range(self.n_seats) if self.side[s] == "evil"]
        for s in evil:
            self.side_known[s].update(evil)
        self.role_known[self.assassin].update(evil)
        self.emit(
            "evil_revealed",
            "Evil conference: the evil players are "
            + ", ".join(self._names[s] for s in evil)
            + f"; the Assassin is {self._names[self.assassin]}.",
            visibility=Visibility.for_team("evil", evil),
            evil=evil,
            assassin=self.assassin,
        )
        self.speakers = evil * self.rules.conference_rounds

    def _enter_assassinate(self) -> None:
        self.phase = "assassinate"
        self.emit("assassination_phase", "Three quests succeeded: the Assassin must name Merlin.")

    def _assassinate(self, seat: int, target: int) -> None:
        self.target = target
        self.emit("assassination", f"{self._names[seat]} (the Assassin) names "
                  f"{self._names[target]} as Merlin.", actor=seat, assassin=seat,
                  target=target)  # fmt: skip
        self.role_known[seat] = set(range(self.n_seats))
        hit = self.role_of[target] == "merlin"
        self._decide("evil_win_assassination" if hit else "good_win")

    def _decide(self, label: str) -> None:
        self.result = label
        if self.rules.belief_reports != "none":
            self._enter_belief("end", then="end")
        else:
            self._end()

    def _enter_belief(self, checkpoint: str, then: str) -> None:
        self.phase, self.buffer = "belief", {}
        self.checkpoint, self.after_belief = checkpoint, then
        self.emit("belief_request", "Belief report: give P(good) for every other player.",
                  checkpoint=checkpoint)  # fmt: skip

    def _resolve_belief(self) -> None:
        self.buffer = {}
        if self.after_belief == "end":
            self._end()
        else:
            self._post_quest()

    def _end(self) -> None:
        self.phase = "end"
        label = self.result or "aborted"
        winner = "good" if label == "good_win" else "evil"
        self.revealed = self.rules.reveal_roles_at_end
        roles = {str(s): r for s, r in enumerate(self.role_of)} if self.revealed else None
        why = "three quests succeeded" if winner == "good" else EVIL_LABELS[label]
        text = f"Game over: {winner} wins ({why})."
        if roles:
            text += " Roles: " + ", ".join(
                f"{self._names[s]}={ROLE_TITLES[r]}" for s, r in enumerate(self.role_of)
            )
        self.emit("game_over", text, label=label, winner=winner, roles=roles)

    # -- outcome ---------------------------------------------------------------------
    def _is_over(self) -> bool:
        return self.phase == "end"

    def _outcome(self) -> Outcome | None:
        if not self._is_over() or self.result is None:
            return None
        winner = "good" if self.result == "good_win" else "evil"
        lose = -1.0 if self.rules.reward_scheme == "pm1" else 0.0
        rewards = {s: (1.0 if self.side[s] == winner else lose) for s in range(self.n_seats)}
        return Outcome(label=self.result, winners=(winner,), rewards=rewards)
