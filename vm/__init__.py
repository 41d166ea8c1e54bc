"""A virtual Raspberry Pi the project builds and boots itself: ``python -m vm check`` (docs/VIRTUAL-PI.md)."""
