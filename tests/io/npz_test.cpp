// NumPy .npz export (docs/weights-format.md): round trips, .npy headers, stored members,
// validation errors.
#include "core/io/npz.h"

#include <gtest/gtest.h>

#include "core/util/atomic_file.h"
#include "io/io_test_util.h"
#include "io/weights_test_util.h"

namespace lsrl {
namespace {

using testing_io::errorOf;
using testing_io::sampleTensorFile;
using testing_io::TempDir;

uint32_t loadLE(std::string_view b, size_t at, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint32_t{static_cast<unsigned char>(b[at + i])} << (8 * i);
  return v;
}

std::string npyError(std::string_view bytes) {
  return errorOf([&] { npyFromBytes(bytes, "w", "w.npy"); });
}

TEST(Npz, RoundTripThroughAFile) {
  TempDir dir;
  const TensorFile f = sampleTensorFile();
  writeNpz(dir.file("model.npz"), f);
  EXPECT_EQ(readNpz(dir.file("model.npz")), f);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.npz"});
}

TEST(Npz, RoundTripWithoutMetadataAndDeterministic) {
  TensorFile f = sampleTensorFile();
  f.metadataJson.clear();
  const std::string a = npzToBytes(f);
  EXPECT_EQ(npzFromBytes(a), f);
  EXPECT_EQ(npzToBytes(f), a);
  EXPECT_EQ(npzFromBytes(npzToBytes(TensorFile{})), TensorFile{});
}

TEST(Npz, NpyHeader) {
  const std::string npy = npyToBytes({"w", {2, 3}, Tensor::F64, {1, 2, 3, 4, 5, 6}});
  ASSERT_GE(npy.size(), 10u);
  EXPECT_EQ(npy.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const uint32_t headerLength = loadLE(npy, 8, 2);
  EXPECT_EQ((10 + headerLength) % 64, 0u);
  const std::string header = npy.substr(10, headerLength);
  EXPECT_EQ(header.rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(npy.size(), 10 + headerLength + 48);
  EXPECT_EQ(npy.substr(10 + headerLength, 8), std::string("\0\0\0\0\0\0\xF0\x3F", 8));

  auto headerOf = [](const Tensor& t) {
    const std::string b = npyToBytes(t);
    return b.substr(10, loadLE(b, 8, 2));
  };
  EXPECT_EQ(headerOf({"v", {3}, Tensor::F32, {1, 2, 3}})
                .rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 0),
            0u);
  EXPECT_EQ(headerOf({"s", {}, Tensor::F64, {1}})
                .rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 0),
            0u);
}

TEST(Npz, MembersAreStoredAlignedAndInOrder) {
  const TensorFile f = sampleTensorFile();
  const std::string zip = npzToBytes(f);
  // Walk the local file headers: signature, method 0 (stored), name, then the .npy.
  size_t at = 0;
  std::vector<std::string> names;
  while (zip.compare(at, 4, "PK\x03\x04") == 0) {
    EXPECT_EQ(loadLE(zip, at + 8, 2), 0u) << "compression method";
    const uint32_t size = loadLE(zip, at + 18, 4);
    const uint32_t nameLength = loadLE(zip, at + 26, 2);
    const uint32_t extraLength = loadLE(zip, at + 28, 2);
    names.push_back(zip.substr(at + 30, nameLength));
    const std::string npy = zip.substr(at + 30 + nameLength + extraLength, size);
    EXPECT_EQ(npy.substr(0, 6), "\x93NUMPY");
    EXPECT_EQ((10 + loadLE(npy, 8, 2)) % 64, 0u);
    at += 30 + nameLength + extraLength + size;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"layers.0.A.npy", "layers.0.b.npy", "scale.npy",
                                             "empty.npy", "cube.npy", "__metadata__.npy"}));
}

TEST(Npz, CorruptArchives) {
  const std::string zip = npzToBytes(sampleTensorFile());
  auto readError = [](std::string_view bytes) {
    return errorOf([&] { npzFromBytes(bytes, "model.npz"); });
  };
  const std::string truncated = readError(zip.substr(0, zip.size() / 2));
  EXPECT_CONTAINS(truncated, "npz file \"model.npz\": not a readable zip archive");
  EXPECT_CONTAINS(readError(zip.substr(0, zip.size() - 3)), "model.npz");
  EXPECT_CONTAINS(readError(""), "model.npz");
  EXPECT_CONTAINS(readError("not a zip at all, not at all"), "not a readable zip archive");
  // A flipped data byte of the first member: the CRC check names the member.
  std::string flipped = zip;
  const size_t firstData = zip.find("\x93NUMPY") + 128 + 3;
  flipped[firstData] ^= 0x55;
  const std::string crc = readError(flipped);
  EXPECT_CONTAINS(crc, "member 'layers.0.A.npy'");
  EXPECT_CONTAINS(crc, "CRC");
  TempDir dir;
  EXPECT_CONTAINS(errorOf([&] { readNpz(dir.file("missing.npz")); }), "missing.npz");
}

TEST(Npz, NpyErrors) {
  const std::string good = npyToBytes({"w", {2}, Tensor::F64, {1, 2}});
  EXPECT_EQ(npyError(good), "<no error>");
  EXPECT_CONTAINS(npyError("abc"), "w.npy: not a .npy file");
  EXPECT_CONTAINS(npyError(good.substr(0, good.size() - 1)),
                  "needs 16 data bytes, the file has 15");
  EXPECT_CONTAINS(npyError(good.substr(0, 40)), "header length");
  auto withHeader = [](const std::string& dict) {
    std::string b("\x93NUMPY\x01\x00", 8);
    b.push_back(static_cast<char>(dict.size() & 0xFF));
    b.push_back(static_cast<char>(dict.size() >> 8));
    return b + dict;
  };
  EXPECT_EQ(npyError(withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 2), }\n")),
            "<no error>");
  EXPECT_CONTAINS(
      npyError(withHeader("{'descr': '>f8', 'fortran_order': False, 'shape': (0,), }\n")),
      "dtype '>f8' is not supported");
  EXPECT_CONTAINS(npyError(withHeader("{'descr': '<f8', 'fortran_order': True, 'shape': (0,), }")),
                  "Fortran-order");
  EXPECT_CONTAINS(npyError(withHeader("{'descr': '<f8', 'shape': (0,)}")), "lacks");
  EXPECT_CONTAINS(npyError(withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}")),
                  "malformed .npy header");
  EXPECT_CONTAINS(npyError(withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': "
                                      "(4294967296, 4294967296)}")),
                  "exceeds the size limit");
  EXPECT_CONTAINS(npyError(withHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)")),
                  "malformed .npy header");
  std::string v9 = good;
  v9[6] = 9;
  EXPECT_CONTAINS(npyError(v9), "unsupported .npy format version 9.0");
}

TEST(Npz, WriteValidationAndAtomicity) {
  TempDir dir;
  const std::string path = dir.file("m.npz");
  writeFileAtomically(path, "old");
  TensorFile bad;
  bad.tensors.push_back({"w", {2}, Tensor::F32, {1}});
  const std::string e = errorOf([&] { writeNpz(path, bad); });
  EXPECT_CONTAINS(e, path);
  EXPECT_CONTAINS(e, "tensor 'w'");
  EXPECT_EQ(readWholeFile(path), "old");
}

}  // namespace
}  // namespace lsrl
