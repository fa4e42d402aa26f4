// MobileGL driver fixture - MG_Remote/Transport/WireLog.h
// The funnel: every death of the split server goes through WireLogFatal, which logs the
// Fatal{Family, "detail"} line its caller built and aborts. Its own abort needs no marker
// (a funnel file), and its callers must name a family (the fatal census, exit gate S7).
#pragma once

#include <cstdio>
#include <cstdlib>

namespace MG_Remote {

[[noreturn]] inline void WireLogFatal(const char* line)
{
    std::fputs(line, stderr);
    std::fputc('\n', stderr);
    std::abort();
}

} // namespace MG_Remote
