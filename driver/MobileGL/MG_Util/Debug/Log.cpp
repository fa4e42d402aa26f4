// MobileGL driver fixture - MG_Util/Debug/Log.cpp
#include "MG_Util/Debug/Log.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <pthread.h>
#include <string>

namespace MG_Util::Debug {
namespace {

constexpr std::size_t kMessageCapacity = 64 * 1024;
constexpr const char* kDefaultPath = "mobilegl.log";

struct Sink {
    std::mutex lock;
    std::string path;
    std::FILE* file = nullptr;
    bool console = false;
    char message[kMessageCapacity];
};

Sink& TheSink() {
    static Sink sink;
    return sink;
}

const char* OsName() {
#if defined(__ANDROID__)
    return "Android";
#elif defined(__linux__)
    return "Linux";
#elif defined(__APPLE__)
    return "macOS";
#elif defined(_WIN32)
    return "Windows";
#else
    return "UnknownOS";
#endif
}

// Opens the sink file on first use; the path comes from SetFilePath, then from
// MOBILEGL_LOG_FILE_PATH, then from the compile-time default.
std::FILE* OpenIfNeeded(Sink& sink) {
    if (sink.file != nullptr) {
        return sink.file;
    }
    if (sink.path.empty()) {
        const char* env = std::getenv("MOBILEGL_LOG_FILE_PATH");
        sink.path = (env != nullptr && env[0] != '\0') ? env : kDefaultPath;
    }
    sink.file = std::fopen(sink.path.c_str(), "w");
    return sink.file;
}

void FormatHeader(Level level, char* out, std::size_t capacity) {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char clock[16];
    std::strftime(clock, sizeof clock, "%H:%M:%S", &local);

    char thread[32] = {0};
    if (pthread_getname_np(pthread_self(), thread, sizeof thread) != 0 || thread[0] == '\0') {
        std::strncpy(thread, "UnknownThread", sizeof thread - 1);
    }
    std::snprintf(out, capacity, "[%s] [%s %s/%s]: ", clock, OsName(), thread, LevelName(level));
}

} // namespace

const char* LevelName(Level level) {
    switch (level) {
    case Level::Debug:
        return "DEBUG";
    case Level::Info:
        return "INFO";
    case Level::Warn:
        return "WARN";
    case Level::Error:
        return "ERROR";
    case Level::Fatal:
        return "FATAL";
    }
    return "INFO";
}

void SetFilePath(const char* path) {
    Sink& sink = TheSink();
    std::lock_guard<std::mutex> guard(sink.lock);
    if (sink.file != nullptr) {
        std::fclose(sink.file);
        sink.file = nullptr;
    }
    sink.path = path != nullptr ? path : "";
}

void SetConsoleEcho(bool enabled) {
    Sink& sink = TheSink();
    std::lock_guard<std::mutex> guard(sink.lock);
    sink.console = enabled;
}

void WriteV(Level level, const char* format, va_list args) {
    Sink& sink = TheSink();
    std::lock_guard<std::mutex> guard(sink.lock);

    char header[96];
    FormatHeader(level, header, sizeof header);
    std::vsnprintf(sink.message, sizeof sink.message, format, args);

    if (std::FILE* file = OpenIfNeeded(sink)) {
        std::fputs(header, file);
        std::fputs(sink.message, file);
        std::fputc('\n', file);
        std::fflush(file);
    }
    if (sink.console) {
        std::fputs(header, stdout);
        std::fputs(sink.message, stdout);
        std::fputc('\n', stdout);
    }
}

void Write(Level level, const char* format, ...) {
    va_list args;
    va_start(args, format);
    WriteV(level, format, args);
    va_end(args);
}

void Close() {
    Sink& sink = TheSink();
    std::lock_guard<std::mutex> guard(sink.lock);
    if (sink.file != nullptr) {
        std::fclose(sink.file);
        sink.file = nullptr;
    }
}

} // namespace MG_Util::Debug
