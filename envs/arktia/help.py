"""Texts for people playing Arktia at the terminal (``help`` and ``rules`` in
``tabletop-zoo play``): how moves are written, the rules on one screen, and the names of the
engine's rounds (``state.round``: setup, two opening rounds, normal play) for announcements."""

ROUND_NAMES = ("the setup", "opening round 1", "opening round 2", "normal play")

RULES_PAGE = "ARKTIA.md"
"""The full rules page with the rulings: ``docs/rules/ARKTIA.md``, shipped in the package
(``tabletop-zoo rules arktia`` shows it)."""

NOTATION_HELP = """\
Arktia notation: tiles are named by row letter (a = top row) and number within the row
(1 = leftmost), e.g. c3. Pieces: G = Globus (small), D = Diskus (medium), T = Torus
(large ring). Upper or lower case.
  place:  kind@tile, e.g. T@c3 (in the setup phase this places one of your neutral pieces)
  move:   from-to, e.g. c3-e1 moves the whole stack; c3-e1/1 takes only the top piece,
          /2 the top two (k pieces from the top)
  melt:   melt a2 (when your reserve is empty you must melt a border tile after your turn)
  keep:   keep d4 (after a capture ties two groups of a colour: the group that stays,
          named by its lowest tile)
  stop:   stop (end your game; allowed after the opening)
Type ? to list the legal moves in this notation."""

RULES_SUMMARY = """\
Arktia in brief (2-4 players; you own 3 G, 3 D and 3 T of your colour)
- Setup (2 players, or 3 with neutral pieces): place your neutral G, D, T one by one so
  the neutral pieces form one connected group.
- Opening: two rounds of placing one piece each, next to the pieces already out.
- A turn: place a piece from your reserve on an empty tile next to one of your pieces,
  or move a piece or stack you control (your piece on top) any distance in a straight
  line, or stop.
- Stacks (bottom to top): A = D,G  B = T,D  C = G,T  D = T,D,G; nothing else may form.
- Your own pieces must stay one connected group. After your move, every other colour
  keeps only its largest connected group: you take the rest, 1 point each (you choose
  which group stays when the largest tie).
- With an empty reserve you must also melt an empty border tile after your turn (1 point).
- Your game ends when you cannot act, cannot melt, have at most one piece on the board
  after the opening, or stop. Score: pieces taken + tiles melted + tiles you control at
  the end. Highest score wins; ties share the win.
Full rulings (R1-R23): tabletop-zoo rules arktia (docs/rules/ARKTIA.md)."""
