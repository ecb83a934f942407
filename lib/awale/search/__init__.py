"""Compiled game-tree search: αβ minimax and the Monte Carlo Tree Search family."""
