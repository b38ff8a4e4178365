"""Texts for people playing Mole Hill at the terminal (``help`` and ``rules`` in
``tabletop-zoo play``): how moves are written, the rules on one screen, and the names of the
engine's rounds (``state.round``) for announcements."""

ROUND_NAMES = ("round 1", "round 2")

RULES_PAGE = "MOLE_HILL.md"
"""The full rules page with the rulings: ``docs/rules/MOLE_HILL.md``, shipped in the package
(``tabletop-zoo rules mole_hill`` shows it)."""

NOTATION_HELP = """\
Mole Hill notation: the garden has columns a-i (left to right) and rows 1-7 (top to
bottom); e4 is the centre space.
  mole:     type the space to go to, e.g. e4 (the first placement, a step to one of the
            8 neighbours, or a jump from the centre)
  gardener: type the two spaces a rod goes between, e.g. e4-f4 (side by side) or e4-e5
            (one above the other); either order, upper or lower case
Type ? to list the legal moves in this notation."""

RULES_SUMMARY = """\
Mole Hill in brief (two rounds; you are the mole in one and the gardener in the other)
- The mole places its stack of 22 pieces on any space, then mole and gardener alternate.
- Gardener: put one rod on a free edge between two orthogonally adjacent spaces.
- Mole: step to one of the 8 neighbouring spaces it has never visited, leaving a piece
  behind. A rod blocks an orthogonal step; a diagonal step needs one of the two corner
  routes (from -> side space -> to) free of rods.
- Standing on the centre e4 at the start of its turn, the mole may jump instead to any
  unvisited space, ignoring rods.
- The round ends when the mole cannot move (or has left all 22 pieces).
- Mole score of a round: spaces visited beyond 10, +1 per white flower and +2 per red
  flower visited (start and end included; by default white b2 h2 b6 h6, red e1 a4 i4 e7).
- After round 2 the higher total mole score wins; equal totals draw.
Full rulings (M1-M10): tabletop-zoo rules mole_hill (docs/rules/MOLE_HILL.md)."""
