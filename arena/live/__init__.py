"""Live view of runs: an MQTT event bus (embedded ``amqtt`` broker or an external one).

Modules: :mod:`.topics` (the versioned topic layout), :mod:`.url` (broker URLs, redaction),
:mod:`.bus` (a non-blocking publisher with a bounded queue and reconnection), :mod:`.sink`
(the per-match event sink), :mod:`.broker` (the embedded broker) and :mod:`.status` (the
retained status and leaderboard documents). This is transport only: what ``arena run`` wires
around a run lives in :mod:`app.live`, the commands in :mod:`app.commands.watch`.
Heavy dependencies (aiomqtt, amqtt) are imported lazily.
"""
