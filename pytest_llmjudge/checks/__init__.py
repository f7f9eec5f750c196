"""Deterministic checks of a response, in one room: read from eval files, as promptfoo writes
them (``parse``), applied to a response (``apply``), said to people (``report``), and the one
call an eval item makes (``item``)."""
