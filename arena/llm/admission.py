"""Admission control: no more concurrent calls than a backend serves inside the time limit.

A backend answers concurrent calls by sharing its capacity among them (a batch on a local model,
a server's own queue over HTTP), so past its capacity every extra call in flight makes all of
them slower, until they reach the decision's time limit and fall back. The admission limit
follows the measured service time of the calls (from leaving our queue to the reply, which
includes any queue inside the server): when a call took more than half its budget the limit
halves (once per round of calls: the calls already in flight were admitted under the old
limit), and once as many calls as the limit have come back in under a quarter of it while every
slot was busy, the limit grows by one, up to the configured ``concurrency`` (additive increase,
multiplicative decrease: growing faster would admit a burst the server then queues). Calls beyond the limit wait in the
backend's gate, a queue wait that does not count against the decision's time limit
(:mod:`arena.deadline`).
"""

from __future__ import annotations

from arena.priority import PriorityGate

SLOW_SHARE = 0.5  # a call that took more of its budget than this: too many in flight
FAST_SHARE = 0.25  # under this, with every slot busy: room for one more


class Admission:
    def __init__(self, gate: PriorityGate, ceiling: int) -> None:
        self.gate = gate
        self.ceiling = ceiling
        self.round = 0  # bumped at each decrease; a call admitted earlier cannot decrease again
        self.decreases = 0
        self.lowest = gate.limit
        self._fast = 0  # fast replies with every slot busy since the limit last changed

    @property
    def limit(self) -> int:
        return self.gate.limit

    def admitted(self) -> int:
        """The round a call is admitted in (pass it back to :meth:`observe`)."""
        return self.round

    def observe(self, admitted_round: int, service_s: float, budget_s: float | None) -> None:
        """A call admitted in ``admitted_round`` was served in ``service_s`` seconds."""
        if budget_s is None or budget_s <= 0:
            return
        if service_s > SLOW_SHARE * budget_s:
            if admitted_round == self.round and self.gate.limit > 1:
                self.gate.resize(self.gate.limit // 2)
                self.round += 1
                self.decreases += 1
                self.lowest = min(self.lowest, self.gate.limit)
                self._fast = 0
        elif (
            service_s < FAST_SHARE * budget_s
            and self.gate.active >= self.gate.limit
            and self.gate.limit < self.ceiling
        ):
            self._fast += 1
            if self._fast >= self.gate.limit:
                self.gate.resize(self.gate.limit + 1)
                self._fast = 0
