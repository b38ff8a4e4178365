"""tabletop_zoo.wrappers: single-agent and multi-agent adapters."""
