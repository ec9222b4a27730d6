"""Ray: the distributed match executor and its worker actors."""
