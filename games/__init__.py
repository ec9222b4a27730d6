"""The built-in games. Each lives in ``games/<game>/`` and is declared in ``games/catalog.py``."""
