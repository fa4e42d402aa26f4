// MobileGL driver fixture - MG_Test/demo/driver_demo.cpp
// Replay harness: runs the scripted workload for N frames through the exported
// GL entry points of libMobileGL.so and leaves behind what a device run leaves:
// a mobilegl.log with `MGPipe stats:` windows and, when asked, a benchmark.json
// in the trace-replay layout (frameTimesMs[] / frameCpuTimesMs[] and summaries).
//
//   driver_demo [--log PATH] [--frames N] [--frames-per-second N]
//               [--benchmark-json PATH] [--benchmark-tail-frames N]
//               [--backend DirectGLES|DirectVulkan] [--width W] [--height H]
//               [--require-symbol NAME]
//
// --require-symbol fails the run (exit 1) when the loaded libMobileGL.so does
// not define NAME (a mangled name): the `controls` gate's swapped-library control
// asks for a push-build symbol and swaps in the pull build.
//
// MOBILEGL_PIPE_STATS defaults to 1 here; MOBILEGL_PIPE_STATS_PERIOD (default
// 120) and MOBILEGL_PIPE_STATS_FILE are read by the library as usual.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <pthread.h>
#include <string>
#include <thread>
#include <vector>

#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_Test/demo/Workload.h"
#include "MG_Util/Debug/Log.h"

namespace {

struct Options {
    std::string logPath = "mobilegl.log";
    std::string benchmarkPath;
    std::string backend = "DirectGLES";
    std::string requiredSymbol;
    Uint64 frames = 300;
    Uint64 framesPerSecond = 0;
    Uint64 tailFrames = 200;
    GLuint width = 1280;
    GLuint height = 720;
};

void Usage() {
    std::fputs("usage: driver_demo [--log PATH] [--frames N] [--frames-per-second N] [--benchmark-json PATH]\n"
               "                   [--benchmark-tail-frames N] [--backend DirectGLES|DirectVulkan]\n"
               "                   [--width W] [--height H] [--require-symbol NAME]\n",
               stderr);
}

bool ParseCount(const char* text, Uint64& out) {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 10);
    if (end == text || *end != '\0') {
        return false;
    }
    out = value;
    return true;
}

// Returns 0 on success, 2 on a usage error.
int ParseOptions(int argc, char** argv, Options& options) {
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") {
            Usage();
            std::exit(0);
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "driver_demo: %s needs a value\n", flag.c_str());
            return 2;
        }
        const char* value = argv[++i];
        Uint64 number = 0;
        if (flag == "--log") {
            options.logPath = value;
        } else if (flag == "--benchmark-json") {
            options.benchmarkPath = value;
        } else if (flag == "--require-symbol") {
            options.requiredSymbol = value;
        } else if (flag == "--backend") {
            options.backend = value;
        } else if (flag == "--frames" && ParseCount(value, number) && number > 0) {
            options.frames = number;
        } else if (flag == "--frames-per-second" && ParseCount(value, number)) {
            options.framesPerSecond = number;
        } else if (flag == "--benchmark-tail-frames" && ParseCount(value, number) && number > 0) {
            options.tailFrames = number;
        } else if (flag == "--width" && ParseCount(value, number) && number > 0 && number <= 16384) {
            options.width = static_cast<GLuint>(number);
        } else if (flag == "--height" && ParseCount(value, number) && number > 0 && number <= 16384) {
            options.height = static_cast<GLuint>(number);
        } else {
            std::fprintf(stderr, "driver_demo: bad option %s %s\n", flag.c_str(), value);
            Usage();
            return 2;
        }
    }
    if (options.backend != "DirectGLES" && options.backend != "DirectVulkan") {
        std::fprintf(stderr, "driver_demo: unknown backend %s (DirectGLES|DirectVulkan)\n", options.backend.c_str());
        return 2;
    }
    return 0;
}

double ThreadCpuMs() {
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
        return -1.0;
    }
    return static_cast<double>(ts.tv_sec) * 1000.0 + static_cast<double>(ts.tv_nsec) / 1.0e6;
}

struct SeriesSummary {
    double mean = -1.0;
    double median = -1.0;
    double p95 = -1.0;
};

// The trace-replay summary rule: the last `tail` entries; median averages the
// two middle values of an even count; p95 is the nearest-rank value.
SeriesSummary Summarize(const std::vector<double>& series, std::size_t tail) {
    SeriesSummary summary;
    if (series.empty() || tail == 0) {
        return summary;
    }
    std::vector<double> window(series.end() - static_cast<std::ptrdiff_t>(tail), series.end());
    double sum = 0.0;
    for (double v : window) {
        sum += v;
    }
    summary.mean = sum / static_cast<double>(tail);
    std::sort(window.begin(), window.end());
    summary.median = tail % 2 == 1 ? window[tail / 2] : (window[tail / 2 - 1] + window[tail / 2]) / 2.0;
    std::size_t rank = static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(tail)));
    rank = std::max<std::size_t>(rank, 1);
    summary.p95 = window[rank - 1];
    return summary;
}

std::string JsonEscape(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
            out += buffer;
        } else {
            out += c;
        }
    }
    return out;
}

std::string Fixed(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string JoinSeries(const std::vector<double>& series) {
    std::string out = "[";
    for (std::size_t i = 0; i < series.size(); ++i) {
        if (i != 0) {
            out += ", ";
        }
        out += Fixed(series[i], 3);
    }
    return out + "]";
}

bool WriteBenchmarkJson(const Options& options, const std::vector<double>& wall, const std::vector<double>& cpu,
                        double totalSeconds) {
    const std::size_t tail = std::min<std::size_t>(options.tailFrames, wall.size());
    const SeriesSummary wallSummary = Summarize(wall, tail);
    const SeriesSummary cpuSummary = Summarize(cpu, std::min<std::size_t>(tail, cpu.size()));
    const double fps = wallSummary.mean > 0.0 ? 1000.0 / wallSummary.mean : -1.0;

    std::string json = "{\n";
    json += "  \"tracePath\": \"" + JsonEscape("driver_demo:minecraft-like-" + std::to_string(options.frames)) +
            "\",\n";
    json += "  \"backend\": \"" + options.backend + "\",\n";
    json += "  \"benchmarkFinish\": true,\n";
    json += "  \"width\": " + std::to_string(options.width) + ",\n";
    json += "  \"height\": " + std::to_string(options.height) + ",\n";
    json += "  \"totalFrames\": " + std::to_string(wall.size()) + ",\n";
    json += "  \"tailFrames\": " + std::to_string(tail) + ",\n";
    json += "  \"totalSeconds\": " + Fixed(totalSeconds, 6) + ",\n";
    json += "  \"meanFrameMs\": " + Fixed(wallSummary.mean, 3) + ",\n";
    json += "  \"medianFrameMs\": " + Fixed(wallSummary.median, 3) + ",\n";
    json += "  \"p95FrameMs\": " + Fixed(wallSummary.p95, 3) + ",\n";
    json += "  \"fps\": " + Fixed(fps, 3) + ",\n";
    json += "  \"meanFrameCpuMs\": " + Fixed(cpuSummary.mean, 3) + ",\n";
    json += "  \"medianFrameCpuMs\": " + Fixed(cpuSummary.median, 3) + ",\n";
    json += "  \"p95FrameCpuMs\": " + Fixed(cpuSummary.p95, 3) + ",\n";
    json += "  \"frameTimesMs\": " + JoinSeries(wall) + ",\n";
    json += "  \"frameCpuTimesMs\": " + JoinSeries(cpu) + "\n";
    json += "}\n";

    std::FILE* file = std::fopen(options.benchmarkPath.c_str(), "w");
    if (file == nullptr) {
        std::fprintf(stderr, "driver_demo: cannot write %s\n", options.benchmarkPath.c_str());
        return false;
    }
    const bool ok = std::fwrite(json.data(), 1, json.size(), file) == json.size();
    return std::fclose(file) == 0 && ok;
}

} // namespace

int main(int argc, char** argv) {
    Options options;
    const int parsed = ParseOptions(argc, argv, options);
    if (parsed != 0) {
        return parsed;
    }
    pthread_setname_np(pthread_self(), "MobileGLDemo");
    setenv("MOBILEGL_PIPE_STATS", "1", 0);
    MG_Util::Debug::SetFilePath(options.logPath.c_str());

    if (mglInitialize(options.backend.c_str(), options.width, options.height) == 0) {
        std::fprintf(stderr, "driver_demo: mglInitialize(%s) failed\n", options.backend.c_str());
        return 1;
    }
    if (!options.requiredSymbol.empty() && dlsym(RTLD_DEFAULT, options.requiredSymbol.c_str()) == nullptr) {
        std::fprintf(stderr, "driver_demo: required symbol %s is not defined by the loaded libMobileGL.so\n",
                     options.requiredSymbol.c_str());
        mglShutdown();
        return 1;
    }
    MG_Test::Workload workload(options.width, options.height);
    workload.Setup();

    std::vector<double> wall;
    std::vector<double> cpu;
    wall.reserve(options.frames);
    cpu.reserve(options.frames);
    const auto runStart = std::chrono::steady_clock::now();
    auto deadline = runStart;
    const auto period = options.framesPerSecond == 0
                            ? std::chrono::steady_clock::duration::zero()
                            : std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(1.0 / static_cast<double>(options.framesPerSecond)));
    for (Uint64 frame = 0; frame < options.frames; ++frame) {
        const auto start = std::chrono::steady_clock::now();
        const double cpuStart = ThreadCpuMs();
        workload.RunFrame(frame);
        glFinish();
        const double cpuEnd = ThreadCpuMs();
        const auto end = std::chrono::steady_clock::now();
        wall.push_back(std::chrono::duration<double, std::milli>(end - start).count());
        if (cpuStart >= 0.0 && cpuEnd >= 0.0) {
            cpu.push_back(cpuEnd - cpuStart);
        }
        if (options.framesPerSecond != 0) {
            deadline += period;
            std::this_thread::sleep_until(deadline);
        }
    }
    const double totalSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    workload.Teardown();
    mglShutdown();

    const MG_Test::WorkloadStats& stats = workload.Stats();
    std::printf("driver_demo: %s, %llu frames, %llu draws, %llu uploads, %llu readbacks, %llu rebuilds, "
                "%llu GL errors, %.3f s -> %s\n",
                options.backend.c_str(), static_cast<unsigned long long>(options.frames),
                static_cast<unsigned long long>(stats.draws), static_cast<unsigned long long>(stats.uploads),
                static_cast<unsigned long long>(stats.readbacks), static_cast<unsigned long long>(stats.rebuilds),
                static_cast<unsigned long long>(stats.glErrors), totalSeconds, options.logPath.c_str());
    if (!options.benchmarkPath.empty() && !WriteBenchmarkJson(options, wall, cpu, totalSeconds)) {
        return 1;
    }
    return stats.glErrors == 0 ? 0 : 1;
}
