"""Benchmarks, run as modules (``python -m bench.<name>``); budgets are in DESIGN.md section 9."""
