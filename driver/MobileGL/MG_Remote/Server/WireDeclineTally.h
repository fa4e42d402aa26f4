// MobileGL driver fixture - MG_Remote/Server/WireDeclineTally.h
// The decline counters, one per WireDeclines.def row. MGL_WIRE_DECLINE_AT counts and logs in
// one statement; a bare WireDeclineTally::Count needs its own MGLOG_W/E just above it.
#pragma once

#include "MG_Util/Debug/Log.h"

namespace MG_Remote::Server {

enum class WireDeclineSite {
#define MGL_WIRE_DECLINE(name) name,
#include "MG_Remote/Server/WireDeclines.def"
#undef MGL_WIRE_DECLINE
    Count_
};

struct WireDeclineTally {
    static void Count(WireDeclineSite site);
    static unsigned Get(WireDeclineSite site);
};

} // namespace MG_Remote::Server

#define MGL_WIRE_DECLINE_AT(site, ...)                                                      \
    do {                                                                                    \
        MGLOG_W(__VA_ARGS__);                                                               \
        ::MG_Remote::Server::WireDeclineTally::Count(::MG_Remote::Server::WireDeclineSite::site); \
    } while (0)
