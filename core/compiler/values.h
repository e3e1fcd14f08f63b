// Value numbering for the compiler's size optimisations (optimize.h): every output
// component of every node gets a value id, equal ids meaning "equal at every step of
// every input sequence". Equalities found: equal constants, Linear rows that are the same
// combination of equal values (an identity row is its input value), ReLU and Multi of
// equal values, and LinState rows that evolve identically (partition refinement over
// init, bias, input row and state row). Sound, not complete: unequal ids may still be
// equal functions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/compiler/ir.h"

namespace lsrl::compiler {

template <class S>
class ValueTable {
 public:
  using Terms = std::vector<std::pair<int, S>>;

  explicit ValueTable(const Scalars<S>& sc) : sc_(sc) {}

  // A value equal to no other.
  int fresh() {
    infos_.push_back({});
    return static_cast<int>(infos_.size()) - 1;
  }
  int constant(const S& v) { return intern(Key{Kind::Const, {}, {v}}, true, v); }
  bool isConstant(int id) const { return infos_[static_cast<size_t>(id)].isConstant; }
  const S& constantValue(int id) const { return infos_[static_cast<size_t>(id)].value; }

  int relu(int x) {
    if (isConstant(x)) {
      const S& v = constantValue(x);
      return sc_.sign(v) > 0 ? x : constant(sc_.zero());
    }
    if (infos_[static_cast<size_t>(x)].isRelu) return x;  // idempotent
    const int id = intern(Key{Kind::Relu, {x}, {}}, false, sc_.zero());
    infos_[static_cast<size_t>(id)].isRelu = true;
    return id;
  }

  int product(int a, int b) {
    if (isConstant(a) && isConstant(b)) return constant(constantValue(a) * constantValue(b));
    for (const auto& [c, x] : {std::pair{a, b}, std::pair{b, a}}) {
      if (!isConstant(c)) continue;
      if (Scalars<S>::isZero(constantValue(c))) return c;
      if (Scalars<S>::isOne(constantValue(c))) return x;
      return linear({{x, constantValue(c)}}, sc_.zero());
    }
    return intern(Key{Kind::Product, {std::min(a, b), std::max(a, b)}, {}}, false, sc_.zero());
  }

  // Σ coef·value + offset, terms in any order (constants and repeated values allowed).
  int linear(Terms terms, S offset) {
    Terms kept;
    for (auto& [v, c] : terms) {
      if (isConstant(v)) {
        offset = offset + c * constantValue(v);
      } else {
        kept.emplace_back(v, std::move(c));
      }
    }
    Key key{Kind::Linear, {}, {}};
    collapse(kept, key);
    if (key.ids.empty()) return constant(offset);
    if (key.ids.size() == 1 && Scalars<S>::isOne(key.coefs[0]) && Scalars<S>::isZero(offset))
      return key.ids[0];
    key.coefs.push_back(std::move(offset));
    return intern(std::move(key), false, sc_.zero());
  }

  // An opaque label for partition refinement: equal (ids, coefs) give equal labels.
  int label(std::vector<int> ids, std::vector<S> coefs) {
    return intern(Key{Kind::Label, std::move(ids), std::move(coefs)}, false, sc_.zero());
  }
  // `terms` summed per id, sorted by id, zero sums dropped, appended to ids and coefs.
  static void collapse(Terms& terms, std::vector<int>& ids, std::vector<S>& coefs) {
    std::sort(terms.begin(), terms.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    for (size_t t = 0; t < terms.size();) {
      S sum = terms[t].second;
      size_t u = t + 1;
      for (; u < terms.size() && terms[u].first == terms[t].first; ++u) sum = sum + terms[u].second;
      if (!Scalars<S>::isZero(sum)) {
        ids.push_back(terms[t].first);
        coefs.push_back(std::move(sum));
      }
      t = u;
    }
  }

 private:
  enum class Kind : uint8_t { Const, Relu, Product, Linear, Label };
  struct Key {
    Kind kind;
    std::vector<int> ids;
    std::vector<S> coefs;
    bool operator==(const Key& o) const {
      return kind == o.kind && ids == o.ids && coefs == o.coefs;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      size_t h = static_cast<size_t>(k.kind) * 0x9e3779b97f4a7c15ULL;
      auto mix = [&h](size_t x) { h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
      for (int id : k.ids) mix(std::hash<int>{}(id));
      // Equal elements convert to equal doubles, so hashing the conversion is consistent.
      for (const S& c : k.coefs) mix(std::hash<double>{}(static_cast<double>(c)));
      return h;
    }
  };
  struct Info {
    bool isConstant = false;
    bool isRelu = false;
    S value{};
  };

  void collapse(Terms& terms, Key& key) { collapse(terms, key.ids, key.coefs); }

  int intern(Key key, bool isConst, const S& value) {
    auto [it, fresh] = table_.emplace(std::move(key), 0);
    if (fresh) {
      Info info;
      info.isConstant = isConst;
      info.value = value;
      infos_.push_back(std::move(info));
      it->second = static_cast<int>(infos_.size()) - 1;
    }
    return it->second;
  }

  Scalars<S> sc_;
  std::vector<Info> infos_;
  std::unordered_map<Key, int, KeyHash> table_;
};

// The value ids of every live node's components (by node id), and for LinStates the
// class of each row (rows of one class hold equal values at every step, s_0 included).
template <class S>
struct ValueNumbering {
  std::vector<std::vector<int>> ids;         // [node][component]
  std::vector<std::vector<int>> stateClass;  // [LinState node][row] -> representative row
  ValueTable<S> table;

  explicit ValueNumbering(const Scalars<S>& sc) : table(sc) {}

  const std::vector<int>& of(NodeId n) const { return ids[static_cast<size_t>(n)]; }
};

// Row r of `m` over the value ids `in` of its input, as terms.
template <class S>
typename ValueTable<S>::Terms rowTerms(const SpMat<S>& m, int r, const std::vector<int>& in) {
  typename ValueTable<S>::Terms t;
  for (int p = m.rowStart[r]; p < m.rowStart[r + 1]; ++p)
    t.emplace_back(in[static_cast<size_t>(m.col[p])], m.val[p]);
  return t;
}

template <class S>
std::vector<int> linStateValues(const CGraph<S>& g, NodeId n, ValueNumbering<S>& vn) {
  const CNode<S>& node = g.node(n);
  const std::vector<int>& in = vn.of(g.input0(n));
  ValueTable<S>& t = vn.table;
  const int d = node.dim;
  // Seed classes: what the row adds each step (input row and bias) and where it starts.
  std::vector<int> cls(static_cast<size_t>(d));
  std::vector<int> drive(static_cast<size_t>(d));  // B·x + bias of each row, as a value
  for (int r = 0; r < d; ++r) {
    const size_t i = static_cast<size_t>(r);
    drive[i] = t.linear(rowTerms(node.B, r, in), node.bias[i]);
    cls[i] = t.label({drive[i]}, {node.init[i]});
  }
  // Refine by the state row summed per class until the class count is stable.
  auto count = [](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    return std::unique(v.begin(), v.end()) - v.begin();
  };
  auto classes = count(cls);
  for (;;) {
    std::vector<int> next(static_cast<size_t>(d));
    for (int r = 0; r < d; ++r) {
      typename ValueTable<S>::Terms terms;
      for (int p = node.A.rowStart[r]; p < node.A.rowStart[r + 1]; ++p)
        terms.emplace_back(cls[static_cast<size_t>(node.A.col[p])], node.A.val[p]);
      std::vector<int> ids{cls[static_cast<size_t>(r)]};
      std::vector<S> coefs;
      ValueTable<S>::collapse(terms, ids, coefs);
      next[static_cast<size_t>(r)] = t.label(std::move(ids), std::move(coefs));
    }
    const auto c = count(next);
    cls = std::move(next);
    if (c == classes) break;
    classes = c;
  }
  // Representatives: the first row of each class. A row without memory (zero state row)
  // is the Linear B·x + bias from the first step on; others are new values.
  std::unordered_map<int, int> rep;
  std::vector<int>& repRow = vn.stateClass[static_cast<size_t>(n)];
  repRow.assign(static_cast<size_t>(d), 0);
  std::vector<int> values(static_cast<size_t>(d));
  std::unordered_map<int, int> valueOfClass;
  for (int r = 0; r < d; ++r) {
    const size_t i = static_cast<size_t>(r);
    auto [it, first] = rep.emplace(cls[i], r);
    repRow[i] = it->second;
    if (first) {
      const bool memoryless = node.A.rowStart[r] == node.A.rowStart[r + 1];
      valueOfClass[cls[i]] = memoryless ? drive[i] : t.fresh();
    }
    values[i] = valueOfClass[cls[i]];
  }
  return values;
}

// Value ids of every live node, in the given topological order.
template <class S>
void numberValues(const CGraph<S>& g, const std::vector<NodeId>& order, ValueNumbering<S>& vn) {
  vn.ids.assign(static_cast<size_t>(g.idLimit()), {});
  vn.stateClass.assign(static_cast<size_t>(g.idLimit()), {});
  ValueTable<S>& t = vn.table;
  for (NodeId n : order) {
    const CNode<S>& node = g.node(n);
    std::vector<int>& out = vn.ids[static_cast<size_t>(n)];
    switch (node.op) {
      case Op::Input:
        for (int i = 0; i < node.dim; ++i) out.push_back(t.fresh());
        break;
      case Op::Linear: {
        const std::vector<int>& in = vn.of(g.input0(n));
        for (int r = 0; r < node.dim; ++r)
          out.push_back(t.linear(rowTerms(node.A, r, in), node.b[static_cast<size_t>(r)]));
        break;
      }
      case Op::ReLU:
        for (int v : vn.of(g.input0(n))) out.push_back(t.relu(v));
        break;
      case Op::Concat:
        for (NodeId x : g.inputs(n)) {
          const std::vector<int>& in = vn.of(x);
          out.insert(out.end(), in.begin(), in.end());
        }
        break;
      case Op::Multi: {
        const std::vector<int>& in = vn.of(g.input0(n));
        const size_t k = in.size() / 2;
        for (size_t i = 0; i < k; ++i) out.push_back(t.product(in[i], in[i + k]));
        break;
      }
      case Op::LinState:
        out = linStateValues(g, n, vn);
        break;
    }
  }
}

}  // namespace lsrl::compiler
