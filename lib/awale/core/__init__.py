"""The core tier: the rules and their kernels, the immutable game, the engine's interface for searches, clocks,
boards (text and SVG), game records and game files.  It imports nothing else of the library."""
