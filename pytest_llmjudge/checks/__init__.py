"""Deterministic checks of an answer, in one room: read from eval files (``parse``, with
promptfoo's value forms in ``values``), run on an answer (``run``), said to people
(``report``), and the one call an eval item makes (``item``)."""
