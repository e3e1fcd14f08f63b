"""More ones or zeros: the LSRL program of the paper's Fig. 1.

Tokens are 0 or 1, one per step (input width 1). The output at step t is 1 when the
tokens seen so far hold more ones than zeros, else 0 (a tie gives 0).

Two LinState counters keep the number of ones and of zeros; f_larger compares them.
After compilation (``program.simplify()``) the whole program is a single Linear RNN
layer.

    lsrl compile examples/more_ones_or_zeros.py --backend exact -o more_ones_model.json
    PYTHONPATH=build/release/python /usr/bin/python3 examples/more_ones_or_zeros.py

The graph is the one the C++ built-in builds (``lsrl program more_ones``), node for
node; tests/python/test_examples.py checks it.
"""

from lsrl import ForEach, Input, LinState, f_larger, f_not


def more_ones_or_zeros(mu=10) -> ForEach:
    """The Fig. 1 program; ``mu`` is the scale of the final comparison (paper: 10)."""
    input = Input(dim=1)
    input.name = "input"

    # ones_t = ones_{t-1} + x_t
    ones = LinState(input, A=[[1]], B=[[1]], init_state=[[0]], name="ones")

    # equivalent to 1 - input
    is_zero = f_not(input)
    zeros = LinState(is_zero, A=[[1]], B=[[1]], init_state=[[0]], name="zeros")

    # equivalent to f_step(ones - zeros): 1 as soon as ones exceeds zeros by one
    output = f_larger(ones, zeros, scale=mu)
    output.name = "output"
    return ForEach(output, verbose=False)


# The program that `lsrl compile FILE.py` and the explorer take.
program = more_ones_or_zeros()


if __name__ == "__main__":
    import numpy as np

    bits = [1, 0, 1, 1, 0, 0, 0, 1]
    tokens = np.array([bits])  # 1 x T: one column per token
    outputs = program(tokens).numpy()[0]
    print("tokens :", " ".join(str(b) for b in bits))
    print("outputs:", " ".join(str(int(round(float(y)))) for y in outputs))
    expected = [int(sum(bits[: t + 1]) > (t + 1) / 2) for t in range(len(bits))]
    print("correct" if [int(round(float(y))) for y in outputs] == expected else "WRONG")
