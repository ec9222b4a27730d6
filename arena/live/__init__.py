"""Live view of runs: an MQTT event bus (embedded ``amqtt`` broker or an external one).

Modules: :mod:`.topics` (the versioned topic layout), :mod:`.url` (broker URLs, redaction),
:mod:`.bus` (a non-blocking publisher with a bounded queue and reconnection), :mod:`.sink`
(the per-match event sink), :mod:`.broker` (the embedded broker), :mod:`.hooks` (what
``arena run`` calls) and :mod:`.cli` (``arena watch``, ``arena replay``, ``arena broker``).
Heavy dependencies (aiomqtt, amqtt, textual) are imported lazily.
"""
