"""The read side of a run directory: plots and match summaries (``arena show``)."""
