// SafetensorsStream, ScratchFile and AtomicFileWriter: a file written tensor by tensor is
// byte for byte the one written whole, its hash is that of its bytes, and nothing is left
// behind when a write is abandoned.
#include "core/io/safetensors_stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/io/graph_hash.h"
#include "core/util/atomic_file.h"
#include "core/util/scratch_file.h"
#include "io/io_test_util.h"
#include "io/weights_test_util.h"

namespace lsrl {
namespace {

using testing_io::errorOf;
using testing_io::sampleTensorFile;
using testing_io::TempDir;

TEST(SafetensorsStream, WritesTheSameBytesAsAWholeFileWrite) {
  const TensorFile file = sampleTensorFile();
  TempDir dir;
  SafetensorsStream stream(dir.path().string());
  EXPECT_TRUE(stream.empty());
  uint64_t dataBytes = 0;
  for (const Tensor& t : file.tensors) {
    stream.add(t);
    dataBytes += t.data.size() * dtypeSize(t.dtype);
  }
  EXPECT_FALSE(stream.empty());
  EXPECT_EQ(stream.dataBytes(), dataBytes);
  AtomicFileWriter out(dir.file("s.safetensors"));
  const SafetensorsStream::Written w = stream.writeTo(out, file.metadataJson);
  out.commit();
  const std::string bytes = readWholeFile(dir.file("s.safetensors"));
  EXPECT_EQ(bytes, safetensorsToBytes(file));
  EXPECT_EQ(w.bytes, bytes.size());
  EXPECT_EQ(w.hash, fnv1a64(bytes));
  EXPECT_EQ(readSafetensors(dir.file("s.safetensors")), file);
  // The scratch file has no name: only the committed file is in the folder.
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.safetensors"});
}

TEST(SafetensorsStream, RefusesWhatAWholeFileWriteRefuses) {
  TempDir dir;
  SafetensorsStream stream(dir.path().string());
  stream.add({"a", {2}, Tensor::F64, {1, 2}});
  EXPECT_EQ(errorOf([&] {
              stream.add({"a", {1}, Tensor::F64, {3}});
            }),
            "safetensors: tensor 'a': the name is used twice");
  EXPECT_EQ(errorOf([&] {
              stream.add({"b", {3}, Tensor::F64, {3}});
            }),
            "safetensors: tensor 'b': shape [3] has 3 elements but the data has 1");
  EXPECT_EQ(stream.dataBytes(), 16u);  // refused tensors add nothing
  EXPECT_NE(errorOf([] {
              SafetensorsStream s("/nonexistent-folder/x");
            }).find("cannot create a scratch file in \"/nonexistent-folder/x\""),
            std::string::npos);
}

TEST(ScratchFile, GivesBackWhatWasAppendedAndHasNoName) {
  TempDir dir;
  std::string expected;
  {
    ScratchFile scratch(dir.path().string());
    for (int i = 0; i < 40; ++i) {
      const std::string piece(static_cast<size_t>(70000 + i), static_cast<char>('a' + i % 26));
      scratch.append(piece);
      expected += piece;
    }
    EXPECT_EQ(scratch.size(), expected.size());
    EXPECT_EQ(dir.entries(), std::vector<std::string>{});  // nothing to leave behind
    std::string back;
    size_t largest = 0;
    scratch.readBack([&](std::string_view piece) {
      back += piece;
      largest = std::max(largest, piece.size());
    });
    EXPECT_EQ(back, expected);
    EXPECT_LE(largest, size_t{1} << 20);
  }
  EXPECT_NE(errorOf([] {
              ScratchFile s("/nonexistent-folder/x");
            }).find("cannot create a scratch file in \"/nonexistent-folder/x\""),
            std::string::npos);
}

TEST(AtomicFileWriter, CheckOutputPathRefusesWhatAWriteWould) {
  TempDir dir;
  checkOutputPath(dir.file("new.json"));  // absent: fine
  std::filesystem::create_directory(dir.file("sub"));
  EXPECT_NE(errorOf([&] { checkOutputPath(dir.file("sub")); }).find("it is a directory"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              checkOutputPath(dir.file("missing/m.json"));
            }).find("/missing\" does not exist"),
            std::string::npos);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"sub"});  // checking writes nothing
}

TEST(AtomicFileWriter, PiecesCommitUnderTheFinalNameAndAnAbandonedWriteLeavesNothing) {
  TempDir dir;
  {
    AtomicFileWriter w(dir.file("zero.bin"));
    w.write("ab");
    w.write(std::string(3 << 20, 'c'));
    w.commit("final.bin");  // a name known only at the end
    EXPECT_NE(errorOf([&] { w.write("more"); }).find("already committed"), std::string::npos);
  }
  EXPECT_EQ(readWholeFile(dir.file("final.bin")), "ab" + std::string(3 << 20, 'c'));
  {
    AtomicFileWriter w(dir.file("final.bin"));
    w.write("never committed");
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"final.bin"});
  EXPECT_EQ(readWholeFile(dir.file("final.bin")).size(), 2u + (3 << 20));
  // The final name is checked like the path: a folder there is refused.
  std::filesystem::create_directory(dir.file("taken"));
  AtomicFileWriter w(dir.file("x.bin"));
  w.write("x");
  EXPECT_NE(errorOf([&] { w.commit("taken"); }).find("it is a directory"), std::string::npos);
}

}  // namespace
}  // namespace lsrl
