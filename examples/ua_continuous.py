"""Universal in-context approximation of continuous functions: the paper's Listing 1.

A function f: [0,1]^n -> R^m is described in the prompt, one token per cell of a grid
of side 1/N: [1/N, lower corner of the cell (n numbers), f at the centre of the cell
(m numbers)]. The query x comes first as [x, 0 (m+1 zeros)]. The output at the last
step is f at the centre of the cell that holds x (input width 1+n+m).

The program copies the query into a state on the first token, then for every prompt
token tests whether the query lies in that token's cell (a bump per coordinate) and,
if so, adds the token's value to the output state.

Every conditional assignment ("t if c else 0") comes in the five variants of the
paper's Sec. 5, chosen by ``conditional``:

    direct                    f_ifelse(c, t_val=t, f_val=t * 0)            (Eq. 7)
    optimized                 ReLU(not_c * (-lam) + t), not_c the complementary test
    step_optimized            f_ifelse_step(c, t_val=t, f_val=None)
    multiplicative            f_ifelse_mul(c, t_val=t, f_val=t * 0)        (Eq. 10)
    multiplicative_optimized  f_ifelse_mul(c, t_val=t, f_val=None)

    lsrl compile examples/ua_continuous.py --backend exact -o vec2vec_model.json
    PYTHONPATH=build/release/python /usr/bin/python3 examples/ua_continuous.py

The graph is the one the C++ built-in builds (``lsrl program vec2vec --set n=...
--set m=... --set conditional=...``), node for node and in the same order;
tests/python/test_examples.py checks it for every variant.
"""

import itertools

import numpy as np

from lsrl import (
    ForEach,
    Input,
    LinState,
    Linear,
    Matrix,
    ReLU,
    f_and,
    f_bump,
    f_constant,
    f_ifelse,
    f_ifelse_mul,
    f_ifelse_step,
    f_larger,
    f_smaller,
)

CONDITIONALS = (
    "direct",
    "optimized",
    "step_optimized",
    "multiplicative",
    "multiplicative_optimized",
)


def conditional_assign(variant, cond, t, optimized, *, mu, lam):
    """t if cond else 0, in one of the CONDITIONALS.

    ``cond`` builds the test that is 1 when the assignment happens, ``t`` the value and
    ``optimized`` the whole optimized form (written out per site). They are callables
    so that each variant builds exactly the nodes it needs, in the order it needs them:
    the test first, then the value, then (direct and multiplicative) the ``t * 0`` of
    the else branch, built on a second call of ``t`` (a second, fresh slice).
    """
    if variant == "optimized":
        return optimized()
    c = cond()
    if variant == "direct":
        return f_ifelse(c, t_val=t(), f_val=t() * 0, large_constant=lam)
    if variant == "step_optimized":
        return f_ifelse_step(c, t_val=t(), f_val=None, large_constant=lam, scale=mu)
    if variant == "multiplicative":
        return f_ifelse_mul(c, t_val=t(), f_val=t() * 0)
    if variant == "multiplicative_optimized":
        return f_ifelse_mul(c, t_val=t(), f_val=None)
    raise ValueError(
        f"unknown conditional {variant!r}; valid values are: {', '.join(CONDITIONALS)}"
    )


def ua_continuous(n=2, m=1, conditional="direct", mu=1000, lam=10**10) -> ForEach:
    """Listing 1 for f: [0,1]^n -> R^m (the C++ built-in ``vec2vec``).

    ``mu`` is the scale of every step function, ``lam`` the large constant of the
    conditional assignments (the C++ built-in's ``mu`` and ``lambda``).
    """
    if conditional not in CONDITIONALS:
        raise ValueError(
            f"unknown conditional {conditional!r}; valid values are: {', '.join(CONDITIONALS)}"
        )
    d_in, d_out = n, m

    input = Input(dim=1 + d_in + d_out)
    input.name = "input"

    # counter needed to know whether we are looking at the query or the prompt: 1, 2, 3, ...
    const_1 = f_constant(input, 1)
    const_1.name = "one"
    counter = LinState(const_1, A=Matrix.eye(1), B=Matrix.eye(1), init_state=Matrix.zeros(1, 1),
                       name="counter")
    counter_vector = Linear(counter, A=Matrix.ones(d_in, 1), b=Matrix.zeros(d_in, 1),
                            name="counter_n")

    # copy the query into a state (only while the counter is 1)
    q_update = conditional_assign(
        conditional,
        cond=lambda: f_smaller(counter_vector, 1.5, scale=mu),
        t=lambda: input[0:d_in],
        optimized=lambda: ReLU(
            f_larger(counter_vector, 1.5, scale=mu) * (-lam) + input[0:d_in]
        ),
        mu=mu,
        lam=lam,
    )
    q_update.name = "x_update"
    q = LinState(q_update, A=Matrix.eye(d_in), B=Matrix.eye(d_in),
                 init_state=Matrix.zeros(d_in, 1), name="x")

    # the following changes the output only when counter > 1
    # the step size is the first element of every prompt token
    step_size = Linear(input[0], A=Matrix.ones(d_in, 1), b=Matrix.zeros(d_in, 1), name="step")

    # with it, the lower and upper bounds of the current prompt cell
    lb = input[1 : 1 + d_in]
    lb.name = "lb"
    ub = lb + step_size
    ub.name = "ub"

    # is q in this cell? (the bump is 1 in every coordinate)
    q_in_bump_componentwise = f_bump(q, lb, ub, scale=mu)
    q_in_bump_componentwise.name = "inside"
    bump_sum = Linear(q_in_bump_componentwise, A=Matrix.ones(1, d_in), b=Matrix.zeros(1, 1),
                      name="total")
    in_cell = f_larger(bump_sum, d_in - 0.5, scale=mu)
    in_cell.name = "in_cell"
    in_and_processing = f_and(in_cell, f_larger(counter, 0.5, scale=mu), scale=mu)
    in_and_processing.name = "active"
    in_and_processing_m = Linear(in_and_processing, A=Matrix.ones(d_out, 1),
                                 b=Matrix.zeros(d_out, 1), name="active_m")

    # if counter > 1 and this cell holds q, add the cell's value to the output state
    values = slice(1 + d_in, 1 + d_in + d_out)  # the cell value in a prompt token
    update = conditional_assign(
        conditional,
        cond=lambda: f_larger(in_and_processing_m, 0.5, scale=mu),
        t=lambda: input[values],
        # the value may be negative: a term for each sign
        optimized=lambda: ReLU(
            f_smaller(in_and_processing_m, 0.5, scale=mu) * (-lam) + input[values]
        ) - ReLU(f_smaller(in_and_processing_m, 0.5, scale=mu) * (-lam) - input[values]),
        mu=mu,
        lam=lam,
    )
    update.name = "update"
    y = LinState(update, A=Matrix.eye(d_out), B=Matrix.eye(d_out),
                 init_state=Matrix.zeros(d_out, 1), name="out")
    return ForEach(y, verbose=False)


def continuous_prompt(f, x, n, m, N):
    """[query; one token per cell] as a (1+n+m) x (1+N^n) array (columns are tokens).

    Cells come in lexicographic order of their index tuples (the last index fastest),
    each token [1/N, lower corner, f(centre)]; the query is [x, 0 (m+1)].
    """
    columns = [np.concatenate([np.asarray(x, dtype=float), np.zeros(m + 1)])]
    for index in itertools.product(range(N), repeat=n):
        corner = np.array(index, dtype=float) / N
        centre = corner + 0.5 / N
        columns.append(np.concatenate([[1.0 / N], corner, np.atleast_1d(f(centre))]))
    return np.stack(columns, axis=1)


# The program that `lsrl compile FILE.py` and the explorer take.
program = ua_continuous()


if __name__ == "__main__":
    def f(x):  # a smooth target [0,1]^2 -> R
        return np.array([np.sin(3 * x[0]) * np.cos(2 * x[1])])

    N = 8
    x = [0.3, 0.7]
    prompt = continuous_prompt(f, x, n=2, m=1, N=N)
    y = program(prompt).numpy()[:, -1]
    centre = (np.floor(np.array(x) * N) + 0.5) / N  # x is inside a cell, not on a wall
    print(f"query x = {x}, {prompt.shape[1] - 1} prompt tokens (N = {N})")
    print(f"program output      : {float(y[0]):.9f}")
    print(f"f at the cell centre: {float(f(centre)[0]):.9f}")
    print(f"f(x)                : {float(f(np.array(x))[0]):.9f}")
