"""The play tier: one game between two agents (:mod:`~awale.play.match`), a game between a human and an agent
(:mod:`~awale.play.session`) and its two faces, the terminal (:mod:`~awale.play.terminal`) and the Jupyter board
(:mod:`~awale.play.widget`)."""
