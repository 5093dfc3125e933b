"""Card encoding: ids, parsing, printing and reduced decks."""

import numpy as np
import pytest

from gamut.envs import cards


def test_every_id_round_trips_through_rank_suit_and_text():
    for card in range(cards.NUM_CARDS):
        rank, suit = cards.rank_of(card), cards.suit_of(card)
        assert cards.card_id(rank, suit) == card
        assert card == 4 * (rank - 2) + suit
        assert cards.parse_card(cards.card_str(card)) == card
        assert cards.parse_card(cards.card_str(card, symbols=True)) == card
        assert cards.card_rank(card) == rank and cards.card_suit(card) == suit


@pytest.mark.parametrize(
    "text, rank, suit",
    [("As", 14, 3), ("Td", 10, 1), ("10h", 10, 2), ("2c", 2, 0), ("kS", 13, 3), (" qh ", 12, 2)],
)
def test_parse_accepts_common_spellings(text, rank, suit):
    assert cards.parse_card(text) == cards.card_id(rank, suit)


@pytest.mark.parametrize("text", ["", "A", "1s", "11h", "Ax", "AsK", "10", "Zs", "T"])
def test_bad_card_text_raises_naming_it(text):
    with pytest.raises(ValueError, match="bad card") as err:
        cards.parse_card(text)
    assert repr(text) in str(err.value)


def test_non_string_and_out_of_range_inputs_are_rejected():
    with pytest.raises(ValueError):
        cards.parse_card(51)
    for bad in (-1, 52, 3.0, True):
        with pytest.raises(ValueError):
            cards.card_str(bad)
    with pytest.raises(ValueError, match="rank"):
        cards.card_id(15, 0)
    with pytest.raises(ValueError, match="suit"):
        cards.card_id(2, 4)


def test_parse_cards_handles_lists_and_rejects_duplicates():
    assert cards.parse_cards("As Td,10h").tolist() == [51, 33, 34]
    assert cards.parse_cards(["2c", "3c"]).tolist() == [0, 4]
    with pytest.raises(ValueError, match="Td appears more than once"):
        cards.parse_cards("Td As 10d")
    assert cards.cards_str([51, 33]) == "As Td"


def test_reduced_decks_keep_the_highest_ranks():
    assert np.array_equal(cards.deck(), np.arange(52))
    small = cards.deck(num_ranks=2, num_suits=2)
    assert cards.cards_str(small) == "Kc Kd Ac Ad"
    three_suits = cards.deck(num_ranks=13, num_suits=3)
    assert len(three_suits) == 39 and not np.any(three_suits % 4 == 3)
    with pytest.raises(ValueError, match="num_ranks"):
        cards.deck(num_ranks=0)
    with pytest.raises(ValueError, match="num_suits"):
        cards.deck(num_suits=5)
