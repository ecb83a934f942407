"""The transposition table as a unit (awale.search.table): what is stored is probed back, the replacement
policy, and the keys and checks that keep one position's entry from answering for another."""

import numpy as np

from awale.search.table import (COMPLETE, ENTRY_BYTES, EXACT, LOWER, UPPER, Entry, answers, clear, entry_check,
                                load, new_table, probe, store)

MISSING = Entry(-1, 0, -1, 0)


def test_store_then_probe_returns_the_entry():
    table = new_table(4)
    assert table.itemsize == ENTRY_BYTES and len(table) == 16
    for shared in (False, True):
        store(table, 0x1234, -57, 6, LOWER | COMPLETE, 3, 0, shared)
        assert tuple(probe(table, 0x1234, shared)) == (3, -57, 6, LOWER | COMPLETE)


def test_an_empty_table_and_another_key_in_the_slot_answer_nothing():
    table = new_table(4)
    assert tuple(probe(table, 5, False)) == MISSING
    store(table, 5, 10, 3, EXACT, 2, 0, False)
    assert tuple(probe(table, 5 + 16, False)) == MISSING  # same slot, other key: a collision is rejected
    assert tuple(probe(table, 5, False)) == (2, 10, 3, EXACT)


def test_replacement_keeps_the_deeper_entry_of_the_same_search():
    table = new_table(4)
    store(table, 7, 1, 8, EXACT, 1, 0, False)
    store(table, 7 + 16, 2, 5, EXACT, 2, 0, False)  # shallower, same generation: refused
    assert tuple(probe(table, 7, False)) == (1, 1, 8, EXACT)
    store(table, 7 + 16, 3, 8, EXACT, 3, 0, False)  # as deep: replaces
    assert tuple(probe(table, 7 + 16, False)) == (3, 3, 8, EXACT)
    store(table, 7, 4, 2, UPPER, 4, 1, False)  # a later search: replaces however shallow
    assert tuple(probe(table, 7, False)) == (4, 4, 2, UPPER)
    store(table, 7, 5, 1, EXACT, 5, 1, False)  # the same key: always rewritten
    assert tuple(probe(table, 7, False)) == (5, 5, 1, EXACT)


def test_a_shared_table_rejects_an_entry_whose_check_does_not_match():
    table = new_table(4)
    store(table, 9, 12, 4, EXACT, 0, 0, True)
    assert table[9]["check"] == entry_check(9, 12, 4, EXACT, 0)
    table[9]["value"] = 13  # a write of another thread half done
    assert tuple(probe(table, 9, True)) == MISSING
    assert tuple(probe(table, 9, False)) == (0, 13, 4, EXACT)  # one thread: no check


def test_load_and_clear():
    table = new_table(4)
    store(table, 1, 0, 1, EXACT, 0, 0, False)
    store(table, 2, 0, 1, EXACT, 0, 1, False)
    assert load(table, 1) == (1, 2, 16)
    clear(table)
    assert load(table, 1) == (0, 0, 16) and tuple(probe(table, 1, False)) == MISSING


def test_answers_at_its_depth_or_deeper_when_complete():
    exact, lower, upper = Entry(0, 5, 4, EXACT), Entry(0, 5, 4, LOWER), Entry(0, 5, 4, UPPER)
    assert answers(exact, 4, -100, 100) and not answers(exact, 5, -100, 100) and not answers(exact, 3, -100, 100)
    assert answers(Entry(0, 5, 4, EXACT | COMPLETE), 9, -100, 100)
    assert not answers(Entry(0, 5, 4, EXACT | COMPLETE), 3, -100, 100)
    assert answers(lower, 4, 0, 5) and not answers(lower, 4, 0, 6)
    assert answers(upper, 4, 5, 9) and not answers(upper, 4, 4, 9)
    assert not answers(Entry(*MISSING), 1, -100, 100)
