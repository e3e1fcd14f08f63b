#include "core/compiler/provenance.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

#include "core/compiler/convert.h"
#include "core/compiler/values.h"
#include "core/numbers/exact_field.h"

namespace lsrl {

namespace {

using compiler::CGraph;
using compiler::CNode;
using compiler::Scalars;
using compiler::SpMat;
using compiler::ValueTable;

// Values in canonical affine form Σ coef·atom + offset, atoms being input components,
// ReLUs and products of forms, and LinState row classes. ValueTable interns the forms and
// atoms; this class keeps what it needs to flatten and compare them: each form's terms,
// each ReLU's argument, and the LinState rows seen so far for matching across graphs.
template <class S>
class FormNumbering {
 public:
  using Terms = typename ValueTable<S>::Terms;

  explicit FormNumbering(const Scalars<S>& sc) : sc_(sc), table_(sc) {}

  int fresh() { return table_.fresh(); }
  bool isConstant(int f) const { return table_.isConstant(f); }
  const S& constantValue(int f) const { return table_.constantValue(f); }

  // Σ coef·form + offset, flattened onto atoms.
  int combine(const Terms& terms, S offset) {
    Terms flat;
    for (const auto& [f, c] : terms) addScaled(flat, offset, f, c);
    return intern(std::move(flat), std::move(offset));
  }

  int negate(int f) {
    if (auto it = negation_.find(f); it != negation_.end()) return it->second;
    const int n = combine({{f, -sc_.one()}}, sc_.zero());
    negation_.emplace(f, n);
    negation_.emplace(n, f);
    return n;
  }

  int relu(int f) {
    // A ReLU of a value known to be ≥ 0 is that value, of one known to be ≤ 0 is zero: the
    // compiler's bypasses pass ReLU outputs through further bypasses (relu(−relu(x)) = 0).
    if (nonNegative(negate(f)) && !nonNegative(f)) return table_.constant(sc_.zero());
    const int r = nonNegative(f) ? f : table_.relu(f);
    if (isConstant(r)) return r;
    // relu(f) may be f itself (a ReLU's value again): still the partner of relu(−f).
    reluOf_.emplace(f, r);
    if (r != f) reluArg_.emplace(r, f);
    return r;
  }
  // True when f ≥ 0 follows from its form: a non-negative combination of ReLUs plus a
  // non-negative offset.
  bool nonNegative(int f) const {
    if (isConstant(f)) return sc_.sign(constantValue(f)) >= 0;
    const auto it = forms_.find(f);
    if (it == forms_.end()) return reluArg_.count(f) > 0;
    const Form& form = it->second;
    if (sc_.sign(form.offset) < 0) return false;
    for (size_t k = 0; k < form.atoms.size(); ++k) {
      if (sc_.sign(form.coefs[k]) < 0 || reluArg_.count(form.atoms[k]) == 0) return false;
    }
    return true;
  }

  // The argument of a ReLU atom, or -1.
  int reluArgument(int f) const {
    const auto it = reluArg_.find(f);
    return it == reluArg_.end() ? -1 : it->second;
  }

  int product(int a, int b) {
    for (const auto& [c, x] : {std::pair{a, b}, std::pair{b, a}}) {
      if (isConstant(c)) return combine({{x, constantValue(c)}}, sc_.zero());
    }
    return table_.product(a, b);
  }

  // Values of a LinState's rows given the forms of its input, matched against every
  // LinState row numbered before (a row that evolves like an earlier one is that value).
  std::vector<int> linState(const CNode<S>& node, const std::vector<int>& in) {
    const int d = node.dim;
    const size_t before = rows_.size();
    for (int r = 0; r < d; ++r) {
      Row row;
      Terms drive;
      for (int p = node.B.rowStart[r]; p < node.B.rowStart[r + 1]; ++p)
        drive.emplace_back(in[static_cast<size_t>(node.B.col[p])], node.B.val[p]);
      row.drive = combine(drive, node.bias[static_cast<size_t>(r)]);
      row.seed = table_.label({row.drive}, {node.init[static_cast<size_t>(r)]});
      for (int p = node.A.rowStart[r]; p < node.A.rowStart[r + 1]; ++p)
        row.state.emplace_back(static_cast<int>(before) + node.A.col[p], node.A.val[p]);
      rows_.push_back(std::move(row));
    }
    const std::vector<int> cls = refineRows();
    std::unordered_map<int, int> valueOfClass;
    for (size_t i = 0; i < before; ++i) valueOfClass.emplace(cls[i], rows_[i].value);
    std::vector<int> out;
    for (size_t i = before; i < rows_.size(); ++i) {
      auto it = valueOfClass.find(cls[i]);
      if (it == valueOfClass.end()) {
        const int v = rows_[i].state.empty() ? rows_[i].drive : fresh();
        it = valueOfClass.emplace(cls[i], v).first;
      }
      rows_[i].value = it->second;
      out.push_back(it->second);
    }
    return out;
  }

 private:
  struct Form {
    std::vector<int> atoms;
    std::vector<S> coefs;
    S offset;
  };
  struct Row {
    int drive = -1;                        // B·x + bias, as a form
    int seed = -1;                         // (drive, init)
    std::vector<std::pair<int, S>> state;  // A row over all rows_ indices
    int value = -1;
  };

  void addScaled(Terms& flat, S& offset, int f, const S& c) {
    if (isConstant(f)) {
      offset = offset + c * constantValue(f);
      return;
    }
    const auto it = forms_.find(f);
    if (it == forms_.end()) {  // an atom
      flat.emplace_back(f, c);
      return;
    }
    const Form& form = it->second;
    for (size_t k = 0; k < form.atoms.size(); ++k)
      flat.emplace_back(form.atoms[k], c * form.coefs[k]);
    offset = offset + c * form.offset;
  }

  int intern(Terms flat, S offset) {
    std::vector<int> atoms;
    std::vector<S> coefs;
    for (;;) {
      atoms.clear();
      coefs.clear();
      ValueTable<S>::collapse(flat, atoms, coefs);
      if (!cancelReluPair(atoms, coefs, flat, offset)) break;
    }
    if (atoms.empty()) return table_.constant(offset);
    if (atoms.size() == 1 && Scalars<S>::isOne(coefs[0]) && Scalars<S>::isZero(offset))
      return atoms[0];
    Terms terms;
    for (size_t k = 0; k < atoms.size(); ++k) terms.emplace_back(atoms[k], coefs[k]);
    const int id = table_.linear(std::move(terms), offset);
    forms_.try_emplace(id, Form{std::move(atoms), std::move(coefs), std::move(offset)});
    return id;
  }

  // c·ReLU(x) − c·ReLU(−x) = c·x: rewrites the first such pair in `flat` (rebuilt from the
  // collapsed atoms and coefs) and says whether it found one.
  bool cancelReluPair(const std::vector<int>& atoms, const std::vector<S>& coefs, Terms& flat,
                      S& offset) {
    for (size_t k = 0; k < atoms.size(); ++k) {
      const int arg = reluArgument(atoms[k]);
      if (arg < 0) continue;
      const auto partner = reluOf_.find(negate(arg));
      if (partner == reluOf_.end()) continue;
      const auto at = std::find(atoms.begin(), atoms.end(), partner->second);
      if (at == atoms.end()) continue;
      const size_t j = static_cast<size_t>(at - atoms.begin());
      if (!Scalars<S>::isZero(coefs[k] + coefs[j])) continue;
      flat.clear();
      for (size_t m = 0; m < atoms.size(); ++m) {
        if (m != k && m != j) flat.emplace_back(atoms[m], coefs[m]);
      }
      addScaled(flat, offset, arg, coefs[k]);
      return true;
    }
    return false;
  }

  // Partition refinement over every row so far: rows in one class hold equal values at
  // every step (equal start, equal drive, equal sums of state coefficients per class).
  std::vector<int> refineRows() {
    const size_t n = rows_.size();
    std::vector<int> cls(n);
    for (size_t i = 0; i < n; ++i) cls[i] = rows_[i].seed;
    auto count = [](std::vector<int> v) {
      std::sort(v.begin(), v.end());
      return std::unique(v.begin(), v.end()) - v.begin();
    };
    auto classes = count(cls);
    for (;;) {
      std::vector<int> next(n);
      for (size_t i = 0; i < n; ++i) {
        Terms terms;
        for (const auto& [j, c] : rows_[i].state)
          terms.emplace_back(cls[static_cast<size_t>(j)], c);
        std::vector<int> ids{cls[i]};
        std::vector<S> coefs;
        ValueTable<S>::collapse(terms, ids, coefs);
        next[i] = table_.label(std::move(ids), std::move(coefs));
      }
      const auto c = count(next);
      cls = std::move(next);
      if (c == classes) return cls;
      classes = c;
    }
  }

  Scalars<S> sc_;
  ValueTable<S> table_;
  std::unordered_map<int, Form> forms_;  // Linear-kind ids: their flattened terms
  std::unordered_map<int, int> reluArg_, reluOf_, negation_;
  std::vector<Row> rows_;
};

// Forms of every node's components, [node id][component]; `inputs` seeds the Input node.
template <class S>
std::vector<std::vector<int>> numberForms(const CGraph<S>& g, FormNumbering<S>& fn,
                                          const std::vector<int>& inputs) {
  std::vector<std::vector<int>> forms(static_cast<size_t>(g.idLimit()));
  for (NodeId id : g.topologicalOrder()) {
    const CNode<S>& node = g.node(id);
    std::vector<int>& out = forms[static_cast<size_t>(id)];
    const auto in = [&](size_t k) -> const std::vector<int>& {
      return forms[static_cast<size_t>(g.inputs(id)[k])];
    };
    switch (node.op) {
      case Op::Input:
        out = inputs;
        break;
      case Op::Linear:
        for (int r = 0; r < node.dim; ++r) {
          typename FormNumbering<S>::Terms terms;
          for (int p = node.A.rowStart[r]; p < node.A.rowStart[r + 1]; ++p)
            terms.emplace_back(in(0)[static_cast<size_t>(node.A.col[p])], node.A.val[p]);
          out.push_back(fn.combine(terms, node.b[static_cast<size_t>(r)]));
        }
        break;
      case Op::ReLU:
        for (int f : in(0)) out.push_back(fn.relu(f));
        break;
      case Op::Concat:
        for (size_t k = 0; k < g.inputs(id).size(); ++k)
          out.insert(out.end(), in(k).begin(), in(k).end());
        break;
      case Op::Multi: {
        const size_t h = in(0).size() / 2;
        for (size_t i = 0; i < h; ++i) out.push_back(fn.product(in(0)[i], in(0)[i + h]));
        break;
      }
      case Op::LinState:
        out = fn.linState(node, in(0));
        break;
    }
  }
  return forms;
}

template <class S>
PathProvenance traceWith(const Graph& program, const Graph& path, const Scalars<S>& sc) {
  const CGraph<S> prog = compiler::fromGraph(program, sc);
  const CGraph<S> comp = compiler::fromGraph(path, sc);
  const int width = prog.dim(prog.inputNode());
  if (comp.dim(comp.inputNode()) != width) {
    throw Error("provenance: the program reads " + std::to_string(width) +
                " input components but the compiled path reads " +
                std::to_string(comp.dim(comp.inputNode())));
  }
  FormNumbering<S> fn(sc);
  std::vector<int> inputs;
  for (int i = 0; i < width; ++i) inputs.push_back(fn.fresh());
  const auto progForms = numberForms(prog, fn, inputs);
  const auto pathForms = numberForms(comp, fn, inputs);

  // Each program value's preferred carrier: named nodes before unnamed ones, then the
  // earliest in topological order (where the value is first computed).
  std::unordered_map<int, std::pair<NodeId, int>> where;
  const std::vector<NodeId> order = prog.topologicalOrder();
  for (const bool named : {true, false}) {
    for (NodeId id : order) {
      if (prog.node(id).name.empty() == named) continue;
      const auto& forms = progForms[static_cast<size_t>(id)];
      for (size_t c = 0; c < forms.size(); ++c)
        where.try_emplace(forms[c], id, static_cast<int>(c));
    }
  }
  const auto find = [&](int f, Carried::Relation rel) -> std::optional<Carried> {
    const auto it = where.find(f);
    if (it == where.end()) return std::nullopt;
    return Carried{it->second.first, it->second.second, rel, {}};
  };
  const auto carriedBy = [&](int f) -> std::optional<Carried> {
    using R = Carried::Relation;
    if (fn.isConstant(f))
      return Carried{kNoNode, 0, R::Constant, sc.to(fn.constantValue(f)).toString()};
    if (auto c = find(f, R::Same)) return c;
    if (auto c = find(fn.negate(f), R::Negated)) return c;
    if (const int arg = fn.reluArgument(f); arg >= 0) {
      if (auto c = find(arg, R::ReluOf)) return c;
      if (auto c = find(fn.negate(arg), R::ReluOfNegated)) return c;
    }
    return std::nullopt;
  };

  PathProvenance p;
  p.carried.resize(path.nodeCount());
  for (NodeId id = 0; id < static_cast<NodeId>(path.nodeCount()); ++id) {
    if (!comp.alive(id)) continue;
    const auto& forms = pathForms[static_cast<size_t>(id)];
    auto& out = p.carried[static_cast<size_t>(id)];
    for (int f : forms) out.push_back(carriedBy(f));
    if (comp.op(id) == Op::Input) continue;
    p.components += static_cast<int>(forms.size());
    p.labelled += static_cast<int>(
        std::count_if(out.begin(), out.end(), [](const auto& c) { return c.has_value(); }));
  }
  return p;
}

}  // namespace

PathProvenance tracePathProvenance(const Graph& program, const Graph& path, Backend backend) {
  if (backend == Backend::Float64) return traceWith(program, path, Scalars<double>{});
  Scalars<compiler::ExactScalar> sc;
  sc.field = &CosField::get(program.conductor());
  return traceWith(program, path, sc);
}

std::string carriedLabel(const Graph& program, const Carried& c) {
  using R = Carried::Relation;
  if (c.relation == R::Constant) return c.constant;
  const Node& n = program.node(c.node);
  // An unnamed node is named by the sugar call that made it: "f_larger#893[0]".
  std::string value = n.name;
  if (value.empty()) {
    if (n.group >= 0 && static_cast<size_t>(n.group) < program.groups().size())
      value = program.groups()[static_cast<size_t>(n.group)].function;
    value.append("#").append(std::to_string(c.node));
  }
  value.append("[").append(std::to_string(c.component)).append("]");
  switch (c.relation) {
    case R::Same:
      return value;
    case R::Negated:
      return "−" + value;
    case R::ReluOf:
      return "relu(" + value + ")";
    case R::ReluOfNegated:
      return "relu(−" + value + ")";
    case R::Constant:
      break;
  }
  return value;
}

}  // namespace lsrl
