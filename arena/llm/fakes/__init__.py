"""Fake LLM servers' engines: deterministic, seeded answers for tests, demos and benchmarks
(served by ``arena serve``)."""
