// Graph files: versioned JSON (docs/graph-format.md). Loading never executes
// anything and reports malformed content with its location (file, JSON path, node);
// saving is atomic (write a temporary file beside the target, then rename).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/graph/graph.h"

namespace lsrl {

// 2: group "expanded" flags and group box positions ("layout": {"nodes", "groups"}).
// Version 1 files load (their layout holds node positions only).
constexpr int kGraphFormatVersion = 2;
// Loading limit against absurd documents: the node widths plus the matrix rows of one
// file may add up to at most this many (each costs memory before any check can run).
constexpr long long kMaxGraphFileWidth = 1LL << 22;

nlohmann::json graphToJson(const Graph& g);
// `source` names the document in error messages (a file path or "<memory>").
// Throws lsrl::Error on malformed structure; values are checked for syntax and
// shape only, so checkGraph() can report every semantic problem of the file.
Graph graphFromJson(const nlohmann::json& doc, const std::string& source = "<memory>");
Graph graphFromString(std::string_view text, const std::string& source = "<memory>");

Graph loadGraphFile(const std::string& path);
void saveGraphFile(const Graph& g, const std::string& path);

// The same with the document's free-form "metadata" value (null when absent).
nlohmann::json graphToJson(const Graph& g, const nlohmann::json& metadata);
Graph graphFromJson(const nlohmann::json& doc, const std::string& source, nlohmann::json* metadata);
Graph loadGraphFile(const std::string& path, nlohmann::json* metadata);
void saveGraphFile(const Graph& g, const std::string& path, const nlohmann::json& metadata);

// The text saveGraphFile writes: one node per line, keys in a fixed order.
std::string graphToString(const Graph& g);
std::string graphToString(const Graph& g, const nlohmann::json& metadata);
// Formats any graph document (as made by graphToJson) the way graphToString does.
std::string formatGraphDocument(const nlohmann::json& doc);

}  // namespace lsrl
