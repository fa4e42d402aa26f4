// MobileGL driver fixture - MG_Util/Debug/Log.h
// The one logging entry point of the driver. Every record - including every
// `MGPipe stats:` window line - goes through Write(), which prefixes the
// `[HH:MM:SS] [<OS> <thread>/<LEVEL>]: ` header. Backends and the state layer
// never print on their own; they call these macros.
#pragma once

#include <cstdarg>

namespace MG_Util::Debug {

enum class Level { Debug, Info, Warn, Error, Fatal };

// Sets the file the sink writes to. Takes effect on the next record; the file
// is opened lazily with truncation, once per process (like the real sink).
void SetFilePath(const char* path);

// Echo records to stdout as well (off by default, like the CI builds).
void SetConsoleEcho(bool enabled);

// Formats and writes one record. Records are flushed one by one so that a
// tailing reader (mgctl stats watch) never sees half a line for long.
void Write(Level level, const char* format, ...) __attribute__((format(printf, 2, 3)));
void WriteV(Level level, const char* format, va_list args);

// Closes the file. A later record re-opens it with truncation, which is the
// upstream trap an analyser should recognise ("log re-opened after close").
void Close();

const char* LevelName(Level level);

} // namespace MG_Util::Debug

#define MGLOG_D(...) ((void)0)
#define MGLOG_I(...) ::MG_Util::Debug::Write(::MG_Util::Debug::Level::Info, __VA_ARGS__)
#define MGLOG_W(...) ::MG_Util::Debug::Write(::MG_Util::Debug::Level::Warn, __VA_ARGS__)
#define MGLOG_E(...) ::MG_Util::Debug::Write(::MG_Util::Debug::Level::Error, __VA_ARGS__)
#define MGLOG_F(...) ::MG_Util::Debug::Write(::MG_Util::Debug::Level::Fatal, __VA_ARGS__)
