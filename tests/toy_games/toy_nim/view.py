"""How Toy Nim shows itself in the terminal."""

from gamut.experiments.terminal_play import TableView

VIEW = TableView(
    render=lambda state, player: f"Toy Nim: {state.state[0]} tokens left; you are player {player}",
    opponent=("multiple_of_four",), hint=("multiple_of_four",),
)
