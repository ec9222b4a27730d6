"""The day discussion (spec §6): round robin, random order, bidding, async ticks, polls."""

from __future__ import annotations

import re

from arena.events import Visibility
from arena.types import Action, Decision, Option
from games.werewolf.base import WerewolfBase


class DayMixin(WerewolfBase):
    def _next_day(self) -> None:
        self.day += 1
        self.phase = f"day_{self.day}"
        self.ev("phase", f"Day {self.day} begins.", {"phase": "day", "number": self.day})
        self.day_first: int | None = None
        mode = self.rules.last_words
        victims, self.night_victims = self.night_victims, []
        if mode == "all_deaths" or (mode == "first_night_and_exiled" and self.night == 1):
            self.run_last_words(list(victims), "discussion")
        else:
            self._next_discussion()

    # -- last words (used at dawn and after an exile) ----------------------------------
    def run_last_words(self, seats: list[int], then: str) -> None:
        self.lw_queue = list(seats)
        self.lw_next = then
        self._next_last_words()

    def _next_last_words(self) -> None:
        if self.lw_queue:
            self.seq("last_words", self.lw_queue.pop(0))
        else:
            self._continue(self.lw_next)

    def _d_last_words(self, seat: int) -> Decision:
        return Decision.trusted(
            kind="last_words",
            prompt="You are dying. Say your last words to everyone, or pass. "
            + self.seat_knowledge(seat, self.alive_others(seat)),
            options=[Option.of("pass")],
            free_text=True,
            max_chars=self.rules.max_message_chars,
            silent_option="pass",
            menu=self.speech_menu(seat),
            meta=self.meta(),
        )

    def _on_last_words(self, seat: int, action: Action) -> None:
        if action.text:
            self.emit_speech(
                "last_words",
                seat,
                action.text,
                label="last words",
                payload={"seat": seat, "text": action.text},
            )
        self._next_last_words()

    # -- discussion ------------------------------------------------------------------
    def _next_discussion(self) -> None:
        r = self.rules
        alive = self.alive_seats()
        self.prev_speaker: int | None = None
        self.last_text = ""
        if r.discussion_mode in ("round_robin", "random_order"):
            if r.discussion_mode == "round_robin":
                start = self._start_seat(alive)
                i = alive.index(start)
                one = alive[i:] + alive[:i]
                order = one * r.discussion_rounds
            elif r.random_order_reuse:
                order = self.rng.sample(alive, len(alive)) * r.discussion_rounds
            else:
                order = []
                for _ in range(r.discussion_rounds):
                    order += self.rng.sample(alive, len(alive))
            self.speak_order = order
            self.speak_idx = 0
            self.day_first = order[0]
            self._next_turn()
        elif r.discussion_mode == "bidding":
            self.turns = 0
            self._next_bid_round()
        else:
            self.tick = 0
            self.quiet = 0
            self.msg_count = {s: 0 for s in alive}
            self._next_async_tick()

    def _start_seat(self, alive: list[int]) -> int:
        how = self.rules.first_speaker
        if how == "random":
            return self.rng.choice(alive)
        if how == "fixed" or self.rr_start is None:
            start = alive[0]
        else:
            later = [s for s in alive if s > self.rr_start]
            start = later[0] if later else alive[0]
        self.rr_start = start
        return start

    def _next_turn(self) -> None:
        if self.speak_idx >= len(self.speak_order):
            self._continue("vote")
            return
        self._give_turn(self.speak_order[self.speak_idx])

    def _give_turn(self, seat: int) -> None:
        self.ev("turn", f"It is {self.n(seat)}'s turn to speak.", {"seat": seat})
        self.seq("speak", seat)

    def _d_speak(self, seat: int) -> Decision:
        return Decision.trusted(
            kind="speak",
            prompt=f"Day {self.day}: it is your turn to speak to everyone (or pass). "
            + self.seat_knowledge(seat, self.alive_others(seat)),
            options=[Option.of("pass")],
            free_text=True,
            max_chars=self.rules.max_message_chars,
            silent_option="pass",
            menu=self.speech_menu(seat),
            meta=self.meta(),
        )

    def _on_speak(self, seat: int, action: Action) -> None:
        self.say(seat, action.text)
        self.prev_speaker = seat
        self.last_text = action.text or ""
        self.run_poll("after_turn")

    def say(self, seat: int, text: str | None, **extra: int) -> None:
        if text:
            self.emit_speech("message", seat, text, payload={"seat": seat, "text": text, **extra})

    def _next_after_turn(self) -> None:
        if self.rules.discussion_mode == "bidding":
            self.turns += 1
            self._next_bid_round()
        else:
            self.speak_idx += 1
            self._next_turn()

    # -- bidding ---------------------------------------------------------------------
    def _next_bid_round(self) -> None:
        bidders = [s for s in self.alive_seats() if s != self.prev_speaker]
        if self.turns >= self.rules.bidding_max_turns or not bidders:
            self._continue("vote")
            return
        self.sim("bid", bidders)

    def _d_bid(self, seat: int) -> Decision:
        return Decision.trusted(
            kind="bid",
            prompt="How urgently do you want to speak next? 0 = only listen, 1 = general "
            "thoughts, 2 = something important, 3 = urgent, 4 = you were addressed directly.",
            options=[Option.of(str(b)) for b in range(5)],
            simultaneous=True,
            meta=self.meta(turn=self.turns + 1, max_turns=self.rules.bidding_max_turns),
        )

    def _resolve_bid(self, answers: dict[int, Action]) -> None:
        bids = {s: int(a.choice or 0) for s, a in answers.items()}
        vis = Visibility.public() if self.rules.bids_visible else Visibility.god()
        for s, b in bids.items():
            self.ev("bid", f"{self.n(s)} bids {b}.", {"seat": s, "bid": b}, vis, actor=s)
        top = max(bids.values())
        if top == 0 and self.rules.bidding_end_on_zero:
            self._continue("vote")
            return
        tied = [s for s, b in bids.items() if b == top]
        if len(tied) == 1:
            winner = tied[0]
        else:
            tickets: list[int] = []
            for s in tied:
                tickets.append(s)
                if re.search(rf"\b{re.escape(self.n(s))}\b", self.last_text, re.IGNORECASE):
                    tickets.append(s)
            winner = self.rng.choice(tickets)
        if self.day_first is None:
            self.day_first = winner
        self._give_turn(winner)

    # -- async ticks -----------------------------------------------------------------
    def _next_async_tick(self) -> None:
        self.tick += 1
        self.sim("async_tick", self.alive_seats())

    def _d_async_tick(self, seat: int) -> Decision:
        r = self.rules
        left = r.async_max_ticks - self.tick
        can_speak = self.msg_count.get(seat, 0) < r.async_max_msgs_per_player
        prompt = f"Day {self.day}, tick {self.tick} of {r.async_max_ticks} ({left} after this). "
        prompt += (
            "Speak now (write a message) or wait."
            if can_speak
            else "You have used all your messages today; you can only wait."
        )
        return Decision.trusted(
            kind="async_tick",
            prompt=prompt,
            options=[Option.of("wait")],
            free_text=can_speak,
            max_chars=r.max_message_chars,
            silent_option="wait",
            simultaneous=True,
            meta=self.meta(tick=self.tick, ticks_remaining=left),
        )

    def _resolve_async_tick(self, answers: dict[int, Action]) -> None:
        msgs = [(s, a.text) for s, a in answers.items() if a.text]
        self.rng.shuffle(msgs)
        for s, text in msgs:
            if self.day_first is None:
                self.day_first = s
            self.say(s, text, tick=self.tick)
            self.msg_count[s] = self.msg_count.get(s, 0) + 1
            self.last_text = text or ""
        left = self.rules.async_max_ticks - self.tick
        self.ev(
            "tick",
            f"(tick {self.tick}: {len(msgs)} message(s); {left} tick(s) left)",
            {"tick": self.tick, "messages": len(msgs), "remaining": left},
        )
        self.quiet = 0 if msgs else self.quiet + 1
        if msgs:
            self.run_poll("after_tick")
        else:
            self._next_after_tick()

    def _next_after_tick(self) -> None:
        r = self.rules
        if self.quiet >= r.async_quiet_ticks or self.tick >= r.async_max_ticks:
            self._continue("vote")
        else:
            self._next_async_tick()

    # -- polls -----------------------------------------------------------------------
    def run_poll(self, then: str) -> None:
        if not self.rules.poll_after_each_turn:
            self._continue(then)
            return
        self.poll_next = then
        self.sim("poll", self.alive_seats())

    def _d_poll(self, seat: int) -> Decision:
        targets = [s for s in self.alive_seats() if s != seat or self.rules.allow_self_vote]
        return Decision.trusted(
            kind="poll",
            prompt="Private, non-binding poll: whom would you vote to exile right now?",
            options=self.seat_options(targets),
            simultaneous=True,
            meta=self.meta(),
        )

    def _resolve_poll(self, answers: dict[int, Action]) -> None:
        for s, a in answers.items():
            t = int(a.choice or 0)
            self.ev(
                "poll",
                f"[god] poll: {self.n(s)} would vote for {self.n(t)}.",
                {"seat": s, "target": t},
                Visibility.god(),
                actor=s,
            )
        self._continue(self.poll_next)
