"""Record in the store the cap each test of the ledger had when it started (the table ``caps``).

Caps have been recorded by ``awale sprt`` since the tests' first game only from commit "sprt records its cap";
the ledger's tests are older.  Their first caps are those data/README.md gives for each row: 300 pairs for the
rows whose cap was later raised (7, 13 and 16 to 600 pairs, 23 to 600 and then ended at 484), the row's own
``max_pairs`` for every other row.  Run from the repository: ``.venv/bin/python data/strength/record_caps.py``.
"""

from awale.experiments import Store
from awale.experiments import ledger
from awale.experiments.sprt import TestPlan, standard_openings

RAISED = {7: 300, 13: 300, 16: 300, 23: 300}  # ledger row (from 1) -> its cap when it started

with Store("data/experiments.sqlite") as store:
    openings = standard_openings()
    for number, row in enumerate(ledger.read("data/strength/ledger.csv"), 1):
        cap = RAISED.get(number, row.max_pairs)
        plan = TestPlan(row.a, row.b, row.test, openings, seed=row.seed, max_pairs=cap, check_every=row.check_every)
        recorded = store.record_cap(plan.store_name, cap, row.check_every)
        print(f"row {number:2}: cap {recorded[0]:>6} pairs (ended at {row.max_pairs}), {store.count(plan.store_name)} games")
