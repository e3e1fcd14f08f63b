"""Universal in-context approximation of token-to-token maps: the paper's Listing 2.

A map from L tokens to L tokens is given in the prompt as a dictionary: the query
q (L tokens) comes first, then the pairs k1 v1 k2 v2 ... kK vK (L tokens each), one
integer token per step (input width 1). The last L outputs are the value whose key
equals the query.

The program keeps the query in a state, compares every key with it token by token,
remembers in a shift-register buffer whether the last L key tokens all matched, and
when they did copies the following L value tokens into output registers, which it
then reads out in turn (paper Fig. 3).

Every conditional assignment ("t if c else 0") comes in the five variants of the
paper's Sec. 5, chosen by ``conditional``:

    direct                    f_ifelse(c, t_val=t, f_val=t * 0)            (Eq. 7)
    optimized                 ReLU(not_c * (-lam) + t), not_c the complementary test
    step_optimized            f_ifelse_step(c, t_val=t, f_val=None)
    multiplicative            f_ifelse_mul(c, t_val=t, f_val=t * 0)        (Eq. 10)
    multiplicative_optimized  f_ifelse_mul(c, t_val=t, f_val=None)

    lsrl compile examples/ua_tok2tok.py --backend exact -o tok2tok_model.json
    PYTHONPATH=build/release/python /usr/bin/python3 examples/ua_tok2tok.py

The graph is the one the C++ built-in builds (``lsrl program tok2tok --set L=...
--set conditional=...``), node for node and in the same order;
tests/python/test_examples.py checks it for every variant.
"""

import numpy as np

from lsrl import (
    Concat,
    ForEach,
    Input,
    LinState,
    Linear,
    Matrix,
    ReLU,
    f_and,
    f_constant,
    f_ifelse,
    f_ifelse_mul,
    f_ifelse_step,
    f_larger,
    f_modulo_counter,
    f_not,
    f_or,
    f_smaller,
)

CONDITIONALS = (
    "direct",
    "optimized",
    "step_optimized",
    "multiplicative",
    "multiplicative_optimized",
)


def conditional_assign(variant, cond, t, not_cond, *, mu, lam):
    """t if cond else 0, in one of the CONDITIONALS.

    ``cond`` builds the test that is 1 when the assignment happens, ``not_cond`` the
    complementary test (used by the optimized variant only) and ``t`` the value. They
    are callables so that each variant builds exactly the nodes it needs, in the order
    it needs them: the test first, then the value, then (direct and multiplicative)
    the ``t * 0`` of the else branch, built on a second call of ``t``.
    """
    if variant == "optimized":
        return ReLU(not_cond() * (-lam) + t())
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


def ua_tok2tok(L=3, conditional="direct", mu=1000, lam=10**10) -> ForEach:
    """Listing 2 for keys and values of L tokens.

    ``mu`` is the scale of every step function, ``lam`` the large constant of the
    conditional assignments (the C++ built-in's ``mu`` and ``lambda``).
    """
    if conditional not in CONDITIONALS:
        raise ValueError(
            f"unknown conditional {conditional!r}; valid values are: {', '.join(CONDITIONALS)}"
        )

    def assign(cond, t, not_cond):
        return conditional_assign(conditional, cond, t, not_cond, mu=mu, lam=lam)

    def mod_L_is(i):  # 1 when the position in the current block of L tokens is i
        return f_and(
            f_larger(mod_L, i - 0.5, scale=mu), f_smaller(mod_L, i + 0.5, scale=mu), scale=mu
        )

    def mod_L_is_not(i):  # its complement, for the optimized conditionals
        return f_or(
            f_larger(mod_L, i + 0.5, scale=mu), f_smaller(mod_L, i - 0.5, scale=mu), scale=mu
        )

    input = Input(dim=1)
    input.name = "input"
    input.always_positive = True  # tokens are 0..V-1

    # counter needed to know whether we are looking at the query or the prompt: 0, 1, 2, ...
    const_1 = f_constant(input, 1)
    global_ctr = LinState(const_1, A=[[1]], B=[[1]], init_state=[[-1]], name="counter")
    global_ctr.always_positive = True

    # counters mod L and mod 2L
    mod_L = f_modulo_counter(input, L, scale=mu)
    mod_L.name = "modL"
    mod_2L = f_modulo_counter(input, 2 * L, scale=mu)
    mod_2L.name = "mod2L"

    # which mode are we in (reading the query, comparing it with a key, or copying a value)
    is_prompt = f_larger(global_ctr, L - 0.5, scale=mu)
    is_prompt.name = "is_prompt"
    is_compare_mode = f_larger(mod_2L, L - 0.5, scale=mu)
    is_compare_mode.name = "is_compare"
    is_copy_mode = f_and(is_prompt, f_not(is_compare_mode), scale=mu)
    is_copy_mode.name = "is_copy"
    is_first_token_for_copy = f_and(is_copy_mode, f_smaller(mod_L, 0.5, scale=mu), scale=mu)
    is_first_token_for_copy.name = "first_copy"

    # the input while we are still reading the query (0 afterwards)
    tq = assign(
        cond=lambda: f_smaller(is_prompt, 0.5, scale=mu),
        t=lambda: input,
        not_cond=lambda: f_larger(is_prompt, 0.5, scale=mu),
    )
    tq.name = "q_in"
    tq.always_positive = True

    # query token i goes to slot i of the query state
    tqs = []
    for i in range(L):
        tq_i = assign(
            cond=lambda: mod_L_is(i), t=lambda: tq, not_cond=lambda: mod_L_is_not(i)
        )
        tq_i.name = f"q_upd_{i}"
        tqs.append(tq_i)
    q = LinState(Concat(tqs), A=Matrix.eye(L), B=Matrix.eye(L), init_state=Matrix.zeros(L, 1),
                 name="query")
    q.always_positive = True

    # the query token that corresponds to the current position in the key
    qs = []
    for i in range(L):
        q_i = assign(
            cond=lambda: mod_L_is(i), t=lambda: q[i], not_cond=lambda: mod_L_is_not(i)
        )
        q_i.name = f"pick_{i}"
        qs.append(q_i)
    cor_q_el = Linear(Concat(qs), A=Matrix.ones(1, L), b=Matrix.zeros(1, 1), name="q_elem")
    cor_q_el.always_positive = True

    # in compare mode (looking at a key): does this token match the query's?
    matching = f_and(
        f_and(
            f_larger(input, cor_q_el - 0.5, scale=mu),
            f_smaller(input, cor_q_el + 0.5, scale=mu),
            scale=mu,
        ),
        is_compare_mode,
        scale=mu,
    )
    matching.name = "match"
    matching.always_positive = True

    # a buffer of the last L+1 match bits (+1 because a state is read after it is written)
    shift_matrix = np.eye(L + 1, k=1, dtype=np.int64)
    newest_last = np.zeros((L + 1, 1), dtype=np.int64)
    newest_last[L, 0] = 1
    buffer = LinState(matching, A=Matrix(shift_matrix), B=Matrix(newest_last),
                      init_state=Matrix.zeros(L + 1, 1), name="buffer")
    buffer.always_positive = True
    buffer_sum = Linear(buffer, A=[[1] * L + [0]], b=Matrix.zeros(1, 1), name="buffer_sum")
    buffer_sum.always_positive = True
    all_matching = f_larger(buffer_sum, L - 0.5, scale=mu)
    all_matching.name = "all_match"

    # all L key tokens matched and this is the first token of the value: remember when
    matching_and_first_for_copy = f_and(all_matching, is_first_token_for_copy, scale=mu)
    matching_and_first_for_copy.name = "mfc"
    matching_and_first_for_copy.always_positive = True
    t_started_on_update = assign(
        cond=lambda: matching_and_first_for_copy,
        t=lambda: global_ctr,
        not_cond=lambda: f_not(matching_and_first_for_copy),
    )
    t_started_on_update.name = "started_on_update"
    started_on = LinState(t_started_on_update, A=Matrix.eye(1), B=Matrix.eye(1),
                          init_state=Matrix.zeros(1, 1), name="started_on")
    started_on.always_positive = True

    # copying to the output registers for L steps after started_on
    copying = f_smaller(global_ctr, started_on + L, scale=mu)
    copying.name = "copying"
    copy_and_on = f_and(is_copy_mode, copying, scale=mu)
    copy_and_on.name = "copy_on"

    mod_L_eq_i = []
    for i in range(L):
        eq_i = mod_L_is(i)
        eq_i.name = f"eq_{i}"
        mod_L_eq_i.append(eq_i)

    # value token i goes to output register i
    t_updates_should_update = []
    for i in range(L):
        should_i = f_and(copy_and_on, mod_L_eq_i[i], scale=mu)
        should_i.name = f"should_{i}"
        t_updates_should_update.append(should_i)
    t_updates = []
    for i in range(L):
        update_i = assign(
            cond=lambda: f_larger(t_updates_should_update[i], 0.5, scale=mu),
            t=lambda: input,
            not_cond=lambda: f_smaller(t_updates_should_update[i], 0.5, scale=mu),
        )
        update_i.name = f"reg_update_{i}"
        t_updates.append(update_i)
    output_regs = []
    for i, update in enumerate(t_updates):
        reg = LinState(update, A=Matrix.eye(1), B=Matrix.eye(1), init_state=Matrix.zeros(1, 1),
                       name=f"reg_{i}")
        reg.always_positive = True
        output_regs.append(reg)

    # finally, read out register i at position i of every block of L tokens
    t_outputs = []
    for i in range(L):
        out_i = assign(
            cond=lambda: f_larger(mod_L_eq_i[i], 0.5, scale=mu),
            t=lambda: output_regs[i],
            not_cond=lambda: f_smaller(mod_L_eq_i[i], 0.5, scale=mu),
        )
        out_i.name = f"out_{i}"
        t_outputs.append(out_i)
    output = Linear(Concat(t_outputs), A=Matrix.ones(1, L), b=Matrix.zeros(1, 1), name="output")
    return ForEach(output, verbose=False)


def tok2tok_prompt(dictionary, query):
    """q, k1, v1, ..., kK, vK as a 1 x T array (one column per token)."""
    tokens = list(query)
    for key, value in dictionary:
        tokens += list(key) + list(value)
    return np.array([tokens], dtype=np.int64)


# The program that `lsrl compile FILE.py` and the explorer take.
program = ua_tok2tok()


if __name__ == "__main__":
    # The paper's Fig. 3: countries to capitals, letters as tokens (? = 0, A = 1, ...).
    def encode(word):
        return [ord(ch) - ord("A") + 1 for ch in word]

    def decode(tokens):
        return "".join("?" if t == 0 else chr(ord("A") + t - 1) for t in tokens)

    capitals = {"AUS": "VIE", "BUL": "SOF", "CAN": "OTT", "DEN": "COP", "ENG": "LON"}
    dictionary = [(encode(k), encode(v)) for k, v in capitals.items()]
    prompt = tok2tok_prompt(dictionary, encode("CAN"))
    outputs = program(prompt).numpy()[0]
    answer = [int(round(float(y))) for y in outputs]
    print("input  :", decode(prompt[0]))
    print("outputs:", decode(answer))
    print("answer :", decode(answer[-3:]), "(expected OTT)")
