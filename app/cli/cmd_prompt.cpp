// lsrl prompt vec2vec|tok2tok ... -o IN.json: input files for the paper's programs.
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/prompt_batch.h"
#include "core/io/json_util.h"
#include "core/io/sequence_file.h"
#include "core/numbers/exact_field.h"
#include "core/programs/prompts.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/quote_input.h"

namespace lsrl::cli {

namespace {

uint64_t parseSeed(const Args& args) {
  const std::string s = args.get("seed", "0");
  size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || s[0] == '-') {
    throw Error("--seed expects a non-negative integer, got " + quoteInput(s));
  }
  return v;
}

// "0.3,0.7" or "4,2,6" -> exact values in the scalar grammar.
ExactVector parseList(const std::string& text, const std::string& what) {
  ExactVector out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      out.push_back(Exact::parse(item));
    } catch (const Error& e) {
      throw Error(what + ": " + e.what());
    }
  }
  if (out.empty()) throw Error(what + " is empty");
  return out;
}

std::vector<int> toInts(const ExactVector& v, const std::string& what) {
  std::vector<int> out;
  for (const Exact& x : v) {
    if (!x.isInteger() || x < Exact(-(1 << 30)) || x > Exact(1 << 30)) {
      throw Error(what + " must hold integers, got " + x.toString());
    }
    out.push_back(static_cast<int>(x.toRational().get_num().get_si()));
  }
  return out;
}

nlohmann::json intsToJson(const std::vector<int>& v) { return nlohmann::json(v); }

// Dictionary files: [[key, value], ...] or {"entries": [{"key": [...], "value": [...]}]}.
Dictionary loadDictionary(const std::string& path) {
  const nlohmann::json doc = io::parseJson(readWholeFile(path), path);
  const nlohmann::json& list = doc.is_object() && doc.contains("entries") ? doc["entries"] : doc;
  if (!list.is_array()) {
    throw Error(path + ": expected an array of [key, value] pairs or {\"entries\": [...]}");
  }
  Dictionary dict;
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& e = list[i];
    const std::string where = path + ": entry " + std::to_string(i);
    try {
      if (e.is_array() && e.size() == 2) {
        dict.push_back({e[0].get<std::vector<int>>(), e[1].get<std::vector<int>>()});
      } else if (e.is_object()) {
        dict.push_back(
            {e.at("key").get<std::vector<int>>(), e.at("value").get<std::vector<int>>()});
      } else {
        throw Error("expected [key, value] or {\"key\": ..., \"value\": ...}");
      }
    } catch (const nlohmann::json::exception& ex) {
      throw Error(where + ": keys and values must be arrays of integers (" + ex.what() + ")");
    } catch (const Error& ex) {
      throw Error(where + ": " + ex.what());
    }
  }
  return dict;
}

// CSV with one row per cell (lexicographic order), m values per row, scalar grammar.
std::vector<ExactVector> loadGrid(const std::string& path, int m, long long cells) {
  std::stringstream ss(readWholeFile(path));
  std::vector<ExactVector> rows;
  std::string line;
  int lineNo = 0;
  while (std::getline(ss, line)) {
    ++lineNo;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (static_cast<long long>(rows.size()) >= cells) {
      throw Error(path + ":" + std::to_string(lineNo) + ": more than the " + std::to_string(cells) +
                  " rows (one per cell) expected");
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ExactVector row = parseList(line, path + ":" + std::to_string(lineNo));
    if (static_cast<int>(row.size()) != m) {
      throw Error(path + ":" + std::to_string(lineNo) + ": row has " + std::to_string(row.size()) +
                  " values, expected m = " + std::to_string(m));
    }
    rows.push_back(std::move(row));
  }
  if (static_cast<long long>(rows.size()) != cells) {
    throw Error(path + ": " + std::to_string(rows.size()) +
                " rows, expected one per cell: " + std::to_string(cells));
  }
  return rows;
}

void writeDocument(const Args& args, const nlohmann::ordered_json& doc, std::ostream& out) {
  writeFileAtomically(args.get("o"), doc.dump() + "\n");
  out << "wrote " << args.get("o") << " (" << doc["tokens"].size() << " tokens)\n";
}

int promptTok2tok(const Args& args, std::ostream& out) {
  const int L = parseIntValue(args.get("L", "3"), "--L", 1, 1024);
  const uint64_t seed = parseSeed(args);
  const int vocab = parseIntValue(args.get("vocab", "10"), "--vocab", 1, 1 << 30);
  if (args.has("count")) {
    if (!args.has("random") || args.has("dict") || args.has("query"))
      throw Error(
          "--count draws a dictionary and a query per prompt: give --random K, "
          "without --dict or --query");
    Tok2tokBatch batch;
    batch.entries = parseIntValue(args.get("random"), "--random", 1, 100000);
    batch.L = L;
    batch.vocab = vocab;
    batch.seed = seed;
    batch.count = static_cast<size_t>(parseIntValue(args.get("count"), "--count", 1, 1 << 30));
    const size_t steps = writeTok2tokBatch(batch, args.get("o"));
    out << "wrote " << args.get("o") << " (" << batch.count << " prompts of " << steps
        << " tokens)\n";
    return 0;
  }
  Tok2tokCase c;
  if (args.has("dict")) {
    if (args.has("random")) throw Error("give either --dict or --random, not both");
    c.dictionary = loadDictionary(args.get("dict"));
    if (c.dictionary.empty()) throw Error(args.get("dict") + ": the dictionary is empty");
    c.query = args.has("query") ? toInts(parseList(args.get("query"), "--query"), "--query")
                                : c.dictionary.front().key;
  } else if (args.has("random")) {
    const int K = parseIntValue(args.get("random"), "--random", 1, 100000);
    c = randomDictionary(K, L, vocab, seed);
    if (args.has("query")) c.query = toInts(parseList(args.get("query"), "--query"), "--query");
  } else {
    throw Error("give a dictionary: --dict DICT.json, or --random K for a seeded random one");
  }
  const int checkVocab = args.has("vocab") ? vocab : 0;
  const ExactSequence tokens = tok2tokInput(c.dictionary, c.query, L, checkVocab);
  nlohmann::ordered_json doc;
  doc["program"] = "tok2tok";
  doc["L"] = L;
  doc["seed"] = seed;
  nlohmann::json dict = nlohmann::json::array();
  for (const DictionaryEntry& e : c.dictionary) dict.push_back({e.key, e.value});
  doc["dictionary"] = dict;
  doc["query"] = intsToJson(c.query);
  doc["expected"] = intsToJson(tok2tokExpected(c.dictionary, c.query, L, checkVocab));
  doc["tokens"] = exactRowsToJson(tokens);
  writeDocument(args, doc, out);
  return 0;
}

int promptVec2vec(const Args& args, std::ostream& out) {
  if (args.has("count"))
    throw Error("--count writes batches of tok2tok prompts; vec2vec writes one prompt per file");
  const int n = parseIntValue(args.get("n", "2"), "--n", 1, 64);
  const int m = parseIntValue(args.get("m", "1"), "--m", 1, 4096);
  const int N = parseIntValue(args.get("N", "8"), "--N", 1, 1 << 20);
  const Exact mu = Exact::parse(args.get("mu", "1000"));
  const uint64_t seed = parseSeed(args);
  const long long cells = vec2vecCellCount(n, N);
  std::mt19937_64 rng(seed);

  std::vector<ExactVector> grid;
  std::string source;
  if (args.has("grid")) {
    grid = loadGrid(args.get("grid"), m, cells);
    source = "grid:" + args.get("grid");
  } else {
    const std::string fn = args.get("function", "smooth");
    if (fn != "smooth") throw Error("--function: the built-in test functions are: smooth");
    const TargetFunction f = smoothTestFunction(n, m, seed);
    // Samples are rounded to 1e-9 so the file holds short exact decimals.
    for (long long cell = 0; cell < cells; ++cell) {
      ExactVector centre = vec2vecCellCentre(vec2vecCellIndex(cell, n, N), N);
      std::vector<double> x;
      for (const Exact& c : centre) x.push_back(c.toDouble());
      ExactVector row;
      for (double y : f(x))
        row.push_back(Exact(static_cast<long long>(std::llround(y * 1e9))) / Exact(1000000000));
      grid.push_back(std::move(row));
    }
    source = "smooth(seed=" + std::to_string(seed) + ")";
  }

  ExactVector query;
  if (args.has("query")) {
    query = parseList(args.get("query"), "--query");
    if (static_cast<int>(query.size()) != n) {
      throw Error("--query has " + std::to_string(query.size()) +
                  " coordinates, expected n = " + std::to_string(n));
    }
    if (!queryIsValid(query, N, mu) && !args.has("allow-wall-query")) {
      throw Error("--query " + args.get("query") +
                  " is outside (1/mu, 1] or within 1/mu of a cell wall, where the program's "
                  "answer is not defined (pass --allow-wall-query to write it anyway)");
    }
  } else {
    for (double v : randomValidQuery(n, N, mu, rng)) {
      query.push_back(Exact(static_cast<long long>(std::llround(v * 1e6))) / Exact(1000000));
    }
    if (!queryIsValid(query, N, mu)) throw Error("could not draw a valid query; use --query");
  }

  const ExactSequence prompt = vec2vecPromptFromGrid(n, m, N, grid);
  const ExactSequence tokens = vec2vecInput(query, m, prompt);
  const std::vector<int> cell = vec2vecQueryCell(query, N);
  long long cellIndex = 0;
  for (int i : cell) cellIndex = cellIndex * N + i;

  nlohmann::ordered_json doc;
  doc["program"] = "vec2vec";
  doc["n"] = n;
  doc["m"] = m;
  doc["N"] = N;
  doc["seed"] = seed;
  doc["function"] = source;
  doc["query"] = exactRowsToJson({query})[0];
  doc["query_valid"] = queryIsValid(query, N, mu);
  doc["expected"] = exactRowsToJson({grid[static_cast<size_t>(cellIndex)]})[0];
  doc["tokens"] = exactRowsToJson(tokens);
  writeDocument(args, doc, out);
  return 0;
}

}  // namespace

int cmdPrompt(const Argv& argv, std::ostream& out) {
  const CommandSpec spec{
      "lsrl prompt vec2vec|tok2tok [options] -o IN.json\n"
      "lsrl prompt tok2tok --random K --count N [options] -o IN.npy|IN.safetensors|IN.json",
      "Writes an input file for `lsrl run`, with the expected answer and the seed recorded.\n"
      "tok2tok: the query followed by every key and value (L tokens each); the answer is\n"
      "the value stored under the query, output at the last L steps. Keys must be unique\n"
      "and the query among them.\n"
      "vec2vec: the query token [x; 0] followed by one token [1/N, lower corner, f(centre)]\n"
      "per cell of the N-grid on [0,1]^n; the answer (last output) is f at the centre of\n"
      "the query's cell. The query must lie in (1/mu, 1]^n and at least 1/mu from every\n"
      "cell wall.\n"
      "tok2tok --random K --count N: N prompts in one file, prompt i the one --seed S+i\n"
      "gives, each L*(2K+1) tokens long (K = 4 and L = 3: 27 tokens): an N x T x 1 array\n"
      "for lsrl run (-o IN.npy, or IN.safetensors with the expected answers as \"expected\")\n"
      "or a JSON batch (-o IN.json).",
      {{"o", "IN.json", "output file (written atomically)"},
       {"seed", "S", "seed for everything random (default 0)"},
       {"L", "L", "tok2tok: key/value length (default 3)"},
       {"dict", "DICT.json", "tok2tok: [[key, value], ...] or {\"entries\": [...]}"},
       {"random", "K", "tok2tok: a seeded random dictionary of K entries"},
       {"count", "N", "tok2tok: N prompts of --random K, seeds S..S+N-1 (.npy/.safetensors/.json)"},
       {"vocab", "V", "tok2tok: tokens in 0..V-1 (default 10)"},
       {"query", "a,b,...",
        "the query (tok2tok: default the first key / a random key;"
        " vec2vec: default a seeded valid query)"},
       {"n", "n", "vec2vec: input dimension (default 2)"},
       {"m", "m", "vec2vec: output dimension (default 1)"},
       {"N", "N", "vec2vec: cells per axis (default 8)"},
       {"mu", "MU", "vec2vec: the program's step scale (default 1000)"},
       {"grid", "F.csv", "vec2vec: f at the cell centres, one row per cell"},
       {"function", "NAME", "vec2vec: a built-in seeded test function (smooth)"},
       {"allow-wall-query", "", "vec2vec: accept a query near a cell wall"}},
      1,
      1};
  const auto args = parseOrHelp(spec, argv, out);
  if (!args) return 0;
  if (!args->has("o")) throw Error("missing -o IN.json (where to write the input)");
  const std::string& program = args->positional()[0];
  if (program == "tok2tok") return promptTok2tok(*args, out);
  if (program == "vec2vec") return promptVec2vec(*args, out);
  throw Error("unknown program " + quoteInput(program) + ": prompts exist for vec2vec and tok2tok");
}

}  // namespace lsrl::cli
