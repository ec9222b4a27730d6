"""Village baseline bots: villager, Seer, Doctor/Guard, Witch, Hunter (spec §13.3-13.6)."""

from __future__ import annotations

from typing import ClassVar

from arena.types import Action, Decision
from games.werewolf.bot_base import WerewolfBot, say, seat_options, silent
from games.werewolf.suspicion import IS_WOLF, NOT_WOLF, SEER_CLAIM, SUSPECT, Suspicion, View


class VillagerBot(WerewolfBot):
    """Spec §13.3 (and the night actions of §13.5-13.6, used by the role subclasses)."""

    kind = "werewolf.villager"
    PARAMS: ClassVar[tuple[str, ...]] = (
        "p_self",
        "p_heal_first",
        "poison_threshold",
        "shot_threshold",
    )

    def on_view(self, view: View) -> None:
        self.susp = Suspicion(view)

    # -- day -----------------------------------------------------------------------------
    def vote_target(self, candidates: list[int]) -> int:
        view = self.view
        assert view is not None
        pool = [c for c in candidates if c != view.me and view.known_team(c) != "village"]
        pool = pool or [c for c in candidates if c != view.me] or candidates
        return self.pick_max(pool, self.susp.scores(pool))

    def alive_others(self) -> list[int]:
        view = self.view
        assert view is not None
        return sorted(s for s in view.alive if s != view.me)

    def speech(self) -> str:
        others = self.alive_others()
        view = self.view
        assert view is not None
        return SUSPECT.format(name=view.names[self.vote_target(others)]) if others else ""

    def on_speak(self, decision: Decision) -> Action:
        text = self.speech()
        return say(decision, text) if text else silent(decision)

    on_last_words = on_speak

    def on_vote(self, decision: Decision) -> Action:
        targets = seat_options(decision)
        if not targets:
            return silent(decision)
        return Action(choices=(str(self.vote_target(targets)),))

    on_revote = on_vote
    on_poll = on_vote

    def has_news(self) -> bool:
        return False

    def on_bid(self, decision: Decision) -> Action:
        view = self.view
        assert view is not None
        if self.addressed():
            bid = 4
        elif self.has_news():
            bid = 3
        else:
            bid = 1 if view.spoke_on_day != view.day else 0
        ids = decision.option_ids
        return Action(choices=(str(bid) if str(bid) in ids else ids[0],))

    def on_async_tick(self, decision: Decision) -> Action:
        view = self.view
        assert view is not None
        if decision.free_text and (view.spoke_on_day != view.day or self.has_news()):
            text = self.speech()
            if text:
                return say(decision, text)
        return silent(decision)

    def on_belief(self, decision: Decision) -> Action:
        return Action(belief=self.susp.belief())

    # -- night and death actions (§13.5, §13.6) ---------------------------------------------
    def on_protect(self, decision: Decision) -> Action:
        view = self.view
        assert view is not None
        targets = seat_options(decision)
        claimants = [c for c in view.credible_seers() if c in targets and c != view.me]
        if claimants:
            return Action(choices=(str(self.rng.choice(claimants)),))
        p_self = float(self.params.get("p_self", 0.5))
        if view.me in targets and self.rng.random() < p_self:
            return Action(choices=(str(view.me),))
        others = [t for t in targets if t != view.me] or targets
        low = {t: -self.susp.score(t) for t in others}
        return Action(choices=(str(self.pick_max(others, low)),))

    on_guard = on_protect

    def on_witch_heal(self, decision: Decision) -> Action:
        view = self.view
        assert view is not None
        if "heal" not in decision.option_ids:
            return silent(decision)
        victim = view.witch_victim
        heal = victim is not None and victim in view.credible_seers()
        if not heal and view.night <= 1:
            heal = self.rng.random() < float(self.params.get("p_heal_first", 1.0))
        skip = "skip" if "skip" in decision.option_ids else decision.option_ids[0]
        return Action(choices=("heal" if heal else skip,))

    def on_witch_poison(self, decision: Decision) -> Action:
        view = self.view
        assert view is not None
        targets = [t for t in seat_options(decision) if t != view.me]
        none = "none" if "none" in decision.option_ids else None
        if targets:
            best = self.vote_target(targets)
            if self.susp.score(best) >= float(self.params.get("poison_threshold", 3.0)):
                return Action(choices=(str(best),))
        return Action(choices=(none or decision.option_ids[0],))

    def on_hunter_shot(self, decision: Decision) -> Action:
        view = self.view
        assert view is not None
        targets = [t for t in seat_options(decision) if t != view.me] or seat_options(decision)
        if targets:
            best = self.vote_target(targets)
            threshold = float(self.params.get("shot_threshold", 1.0))
            if self.susp.score(best) >= threshold or "decline" not in decision.option_ids:
                return Action(choices=(str(best),))
        return Action(
            choices=("decline",) if "decline" in decision.option_ids else (decision.option_ids[0],)
        )

    def on_inspect(self, decision: Decision) -> Action:
        view = self.view
        assert view is not None
        targets = [t for t in seat_options(decision) if t != view.me] or seat_options(decision)
        fresh = [t for t in targets if t not in view.seer_results] or targets
        return Action(choices=(str(self.pick_max(fresh, self.susp.scores(fresh))),))


class DoctorBot(VillagerBot):
    kind = "werewolf.doctor"


class GuardBot(VillagerBot):
    kind = "werewolf.guard"


class WitchBot(VillagerBot):
    kind = "werewolf.witch"


class HunterBot(VillagerBot):
    kind = "werewolf.hunter"


class SeerBot(VillagerBot):
    """Spec §13.4: inspect the most suspected, share results per ``seer_reveal``."""

    kind = "werewolf.seer"
    PARAMS: ClassVar[tuple[str, ...]] = ("seer_reveal",)

    def claiming(self) -> bool:
        view = self.view
        assert view is not None
        policy = str(self.params.get("seer_reveal", "on_wolf_found"))
        if policy == "immediately":
            return view.day >= 1
        if policy == "on_wolf_found":
            return any(view.seer_results.values())
        return False

    def has_news(self) -> bool:
        view = self.view
        assert view is not None
        return self.claiming() and view.spoke_on_day != view.day

    def vote_target(self, candidates: list[int]) -> int:
        view = self.view
        assert view is not None
        wolves = [c for c in candidates if view.seer_results.get(c) is True]
        if wolves:
            return self.pick_max(wolves, self.susp.scores(wolves))
        pool = [c for c in candidates if c != view.me and view.seer_results.get(c) is not False]
        pool = [c for c in pool if view.known_team(c) != "village"] or pool
        return super().vote_target(pool or candidates)

    def speech(self) -> str:
        view = self.view
        assert view is not None
        base = super().speech()
        if not self.claiming():
            return base
        parts = [SEER_CLAIM]
        for target, wolf in sorted(view.seer_results.items()):
            parts.append((IS_WOLF if wolf else NOT_WOLF).format(name=view.names[target]))
        others = self.alive_others()
        if others:
            target = self.vote_target(others)
            if view.seer_results.get(target) is not True:
                parts.append(SUSPECT.format(name=view.names[target]))
        return " ".join(parts)
