"""Independent NumPy forward passes of the exported target models (docs/architectures.md).

Reads every safetensors file of a manifest (written by numpy_reference_test.cpp), parses it
by hand, runs the architecture named in its metadata straight from the documented
equations and tensor layouts (PyTorch gate orders, depthwise conv orientation), and
compares with the outputs LSRL computed. Prints "numpy-ok" when all agree.
"""
import json
import struct
import sys

import numpy as np


def load(path):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    meta = json.loads(header.pop("__metadata__")["lsrl"])
    data = raw[8 + n:]
    tensors = {}
    for name, h in header.items():
        b, e = h["data_offsets"]
        tensors[name] = np.frombuffer(data[b:e], dtype="<f8").reshape(h["shape"])
    return meta, tensors


def relu(z):
    return np.maximum(z, 0.0)


def run_nf(meta, T, xs):
    layers = meta["layers"]
    states = [T[f"layers.{l}.state.s0"].copy() for l in range(len(layers))]
    out = []
    for x in xs:
        u = x
        for l, info in enumerate(layers):
            p = f"layers.{l}."
            s = T[p + "state.A"] @ states[l] + T[p + "state.B"] @ u + T[p + "state.bias"]
            if info["state_update"] == "relu":
                s = relu(s)
            states[l] = s

            def branch(name):
                z, k = s, 0
                while f"{p}{name}.{k}.weight" in T:
                    z = relu(T[f"{p}{name}.{k}.weight"] @ z + T[f"{p}{name}.{k}.bias"])
                    k += 1
                return z

            u = branch("f") * branch("g") if info["role"] == "gated" else branch("f")
        out.append(T["readout.weight"] @ u + T["readout.bias"])
    return out


def recurrent_names(meta, prefix, k):
    """Per-layer modules (gru.{k}.weight_ih_l0) or one stacked module (gru.weight_ih_l{k})."""
    if meta.get("stacked"):
        return lambda what: f"{prefix}.{what}_l{k}"
    return lambda what: f"{prefix}.{k}.{what}_l0"


def initial(meta, T, prefix, what, n):
    if meta.get("stacked"):
        return [T[f"{prefix}.{what}"][k].copy() for k in range(n)]
    return [T[f"{prefix}.{k}.{what}"].copy() for k in range(n)]


def run_gru(meta, T, xs):
    n = len(meta["layers"])
    h = initial(meta, T, "gru", "h0", n)
    out = []
    for x in xs:
        for k in range(n):
            name = recurrent_names(meta, "gru", k)
            H = h[k].shape[0]
            gi = T[name("weight_ih")] @ x + T[name("bias_ih")]
            gh = T[name("weight_hh")] @ h[k] + T[name("bias_hh")]
            r = relu(gi[:H] + gh[:H])
            z = relu(gi[H:2 * H] + gh[H:2 * H])
            nn = relu(gi[2 * H:] + r * gh[2 * H:])
            if meta["gru_update"] == "pytorch":
                h[k] = (1 - z) * nn + z * h[k]
            else:
                h[k] = (1 - z) * h[k] + z * nn
            x = h[k]
        out.append(T["readout.weight"] @ x + T["readout.bias"])
    return out


def run_lstm(meta, T, xs):
    n = len(meta["layers"])
    h = initial(meta, T, "lstm", "h0", n)
    c = initial(meta, T, "lstm", "c0", n)
    out = []
    for x in xs:
        for k in range(n):
            name = recurrent_names(meta, "lstm", k)
            H = h[k].shape[0]
            g4 = relu(T[name("weight_ih")] @ x + T[name("bias_ih")] +
                      T[name("weight_hh")] @ h[k] + T[name("bias_hh")])
            i, f, g, o = g4[:H], g4[H:2 * H], g4[2 * H:3 * H], g4[3 * H:]
            c[k] = f * c[k] + i * g
            h[k] = o * relu(c[k])
            x = h[k]
        out.append(T["readout.weight"] @ x + T["readout.bias"])
    return out


def run_hawk(meta, T, xs):
    blocks = len(meta["blocks"])
    K = meta["conv_width"]
    assert meta["lru_base"] == "relu" and meta["norm"] == "none"
    a_hist = [[] for _ in range(blocks)]  # every linear_x output so far
    h = [np.zeros(meta["D_R"]) for _ in range(blocks)]
    out = []
    for x in xs:
        v = T["embed.weight"] @ x + T["embed.bias"]
        for k in range(blocks):
            p = f"blocks.{k}.recurrent."
            a_hist[k].append(T[p + "linear_x.weight"] @ v + T[p + "linear_x.bias"])
            # PyTorch causal depthwise Conv1d, left padding K-1: weight[:, 0, K-1] meets
            # the current token.
            w = T[p + "conv_1d.weight"][:, 0, :]
            t = len(a_hist[k]) - 1
            u = T[p + "conv_1d.bias"].copy()
            for idx in range(K):
                tau = t - (K - 1) + idx
                if tau >= 0:
                    u = u + w[:, idx] * a_hist[k][tau]
            r = relu(T[p + "rg_lru.a_gate.weight"] @ u + T[p + "rg_lru.a_gate.bias"])
            i = relu(T[p + "rg_lru.input_gate.weight"] @ u + T[p + "rg_lru.input_gate.bias"])
            alpha = relu(T[p + "rg_lru.a_param"]) ** (meta["lru_c"] * r)
            h[k] = alpha * h[k] + np.sqrt(1 - alpha ** 2) * (i * u)
            y = relu(T[p + "linear_y.weight"] @ v + T[p + "linear_y.bias"])
            rec = T[p + "linear_out.weight"] @ (h[k] * y) + T[p + "linear_out.bias"]
            v = v + rec if meta["residual"] else rec
            m = f"blocks.{k}.mlp."
            gate = relu(T[m + "gate.weight"] @ v + T[m + "gate.bias"])
            up = T[m + "up.weight"] @ v + T[m + "up.bias"]
            mlp = T[m + "down.weight"] @ (gate * up) + T[m + "down.bias"]
            v = v + mlp if meta["residual"] else mlp
        out.append(T["readout.weight"] @ v + T["readout.bias"])
    return out


RUNNERS = {"linear_rnn": run_nf, "gated_linear_rnn": run_nf, "rnn": run_nf,
           "gated_rnn": run_nf, "gru": run_gru, "lstm": run_lstm, "hawk": run_hawk}


def main():
    manifest = json.load(open(sys.argv[1]))
    for case in manifest:
        meta, T = load(case["file"])
        xs = [np.array(x, dtype=np.float64) for x in case["inputs"]]
        got = RUNNERS[meta["arch"]](meta, T, xs)
        want = np.array(case["outputs"], dtype=np.float64)
        got = np.array(got)
        assert got.shape == want.shape, (case["label"], got.shape, want.shape)
        err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
        assert err.max(initial=0.0) <= 1e-9, (case["label"], err.max())
    print("numpy-ok", len(manifest))


if __name__ == "__main__":
    main()
