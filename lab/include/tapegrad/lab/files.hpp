#pragma once
// Small file helpers for the lab's results: whole-file reads, and writes that
// are atomic (a temp file renamed over the target, so a reader or a crash never
// sees half a file) and durable (fsync'ed before the rename, and the folder
// after it, so a finished run survives a kill or a power cut).

#include <string>

namespace tapegrad::lab {

// Writes `content` to path via "<path>.tmp" + fsync + rename + fsync of the folder.
// Throws tapegrad::Error naming the path and the system's reason.
void write_file_atomically(const std::string& path, const std::string& content);

// fsync a folder, so that renames into it are on disk.
void sync_directory(const std::string& dir);

// The whole file; throws tapegrad::Error if it cannot be read.
std::string read_file(const std::string& path);

// Creates the folder (and parents) and checks that a file can be written in it;
// throws tapegrad::Error saying why not.
void ensure_writable_directory(const std::string& dir);

}  // namespace tapegrad::lab
