"""Deterministic checks of a response, in one room: read from eval files, as promptfoo writes
them (``parse``), applied to a response (``apply``), and the one call an eval item makes
(``item``); said to people in ``reports/checks_text``."""
