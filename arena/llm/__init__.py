"""LLM agents' machinery: backends (OpenAI-compatible HTTP, local transformers), prompt rendering,
lenient reply parsing, response cache, rate limits and the ``arena serve`` test/local server.

Heavy dependencies (openai, torch, transformers, starlette) are imported lazily by the modules
that need them, so ``import arena.llm`` stays cheap.
"""
