"""The drawing helpers every game's pictures share (docs/DESIGN.md)."""
