"""The knowledge tier, what the searches read besides the rules: the fitted evaluation, the endgame database and
the opening book, with the data files the library ships (weights, books, the balanced openings).  It imports the
core tier alone."""
