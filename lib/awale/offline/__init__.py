"""The offline tier: what builds the knowledge the library ships and checks it: opening books
(:mod:`~awale.offline.book_builder`), the evaluation's fitting (:mod:`~awale.offline.evaluation_fit`, which reads the
experiments' store) and the endgame database's checks against exact searches (:mod:`~awale.offline.endgame_checks`).
The scripts of ``data/`` call it."""
