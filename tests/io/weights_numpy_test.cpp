// The exported weight files load in NumPy: safetensors parsed by hand with np.frombuffer
// (the safetensors package is not installed), npz with np.load. Runs LSRL_PYTHON (Debian's
// /usr/bin/python3, which has numpy; the python3 first on PATH may not) and skips only if
// that interpreter or its numpy is missing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/io/npz.h"
#include "core/io/safetensors.h"
#include "core/util/atomic_file.h"
#include "io/io_test_util.h"
#include "io/weights_test_util.h"

namespace lsrl {
namespace {

using testing_io::TempDir;

constexpr const char* kScript = R"PY(
import json, struct, sys
import numpy as np

st_path, npz_path, expected_path = sys.argv[1:4]
with open(expected_path) as f:
    expected = json.load(f)
names = [t["name"] for t in expected["tensors"]]

def check(where, arr, e):
    want_dtype = np.dtype("<f8" if e["dtype"] == "F64" else "<f4")
    assert arr.dtype == want_dtype, (where, arr.dtype, want_dtype)
    assert list(arr.shape) == e["shape"], (where, arr.shape, e["shape"])
    want = np.array(e["data"], dtype=np.float64).reshape(e["shape"])
    assert np.array_equal(arr.astype(np.float64), want), (where, arr, want)

# safetensors, by hand
with open(st_path, "rb") as f:
    raw = f.read()
n = struct.unpack("<Q", raw[:8])[0]
assert n % 8 == 0, n
header = json.loads(raw[8:8 + n].decode("utf-8"))
meta = header.pop("__metadata__")
assert json.loads(meta["lsrl"]) == expected["metadata"], meta
assert list(header) == names, list(header)
data = raw[8 + n:]
end = 0
for e in expected["tensors"]:
    h = header[e["name"]]
    b, en = h["data_offsets"]
    assert b == end, (e["name"], b, end)
    end = en
    arr = np.frombuffer(data[b:en], dtype={"F64": "<f8", "F32": "<f4"}[h["dtype"]])
    check("safetensors " + e["name"], arr.reshape(h["shape"]), e)
assert end == len(data), (end, len(data))

# npz
with np.load(npz_path) as z:
    assert sorted(z.files) == sorted(names + ["__metadata__"]), z.files
    for e in expected["tensors"]:
        check("npz " + e["name"], z[e["name"]], e)
    m = z["__metadata__"]
    assert m.dtype == np.uint8 and m.ndim == 1, m.dtype
    assert json.loads(m.tobytes().decode("utf-8")) == expected["metadata"]
print("numpy-ok")
)PY";

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

TEST(WeightsNumpy, SafetensorsAndNpzLoadInNumpy) {
  const std::string python = LSRL_PYTHON;
  if (!std::filesystem::exists(python)) GTEST_SKIP() << python << " does not exist";
  if (std::system((shellQuote(python) + " -c 'import numpy' >/dev/null 2>&1").c_str()) != 0) {
    GTEST_SKIP() << python << " has no numpy";
  }
  TempDir dir;
  const TensorFile f = testing_io::sampleTensorFile();
  writeSafetensors(dir.file("model.safetensors"), f);
  writeNpz(dir.file("model.npz"), f);
  nlohmann::json expected;
  expected["metadata"] = nlohmann::json::parse(f.metadataJson);
  expected["tensors"] = nlohmann::json::array();
  for (const Tensor& t : f.tensors) {
    expected["tensors"].push_back(
        {{"name", t.name}, {"shape", t.shape}, {"dtype", dtypeName(t.dtype)}, {"data", t.data}});
  }
  writeFileAtomically(dir.file("expected.json"), expected.dump());
  writeFileAtomically(dir.file("check.py"), kScript);
  const std::string log = dir.file("log.txt");
  const std::string command =
      shellQuote(python) + " " + shellQuote(dir.file("check.py")) + " " +
      shellQuote(dir.file("model.safetensors")) + " " + shellQuote(dir.file("model.npz")) + " " +
      shellQuote(dir.file("expected.json")) + " >" + shellQuote(log) + " 2>&1";
  const int rc = std::system(command.c_str());
  const std::string output = readWholeFile(log);
  EXPECT_EQ(rc, 0) << output;
  EXPECT_CONTAINS(output, "numpy-ok");
}

}  // namespace
}  // namespace lsrl
