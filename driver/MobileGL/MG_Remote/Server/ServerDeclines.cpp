// MobileGL driver fixture - MG_Remote/Server/ServerDeclines.cpp
// Where the server's applier refuses a wire record instead of applying it: each refusal is
// counted under its WireDeclines.def row and logged, so a device log says why a frame is short.

#include "MG_Remote/Server/WireDeclineTally.h"

namespace MG_Remote::Server {

namespace {
unsigned gDeclines[static_cast<unsigned>(WireDeclineSite::Count_)] = {};
} // namespace

void WireDeclineTally::Count(WireDeclineSite site) {
    ++gDeclines[static_cast<unsigned>(site)];
}

unsigned WireDeclineTally::Get(WireDeclineSite site) {
    return gDeclines[static_cast<unsigned>(site)];
}

// Returns whether the record may be applied.
bool AcceptRecord(unsigned verb, unsigned handle, unsigned size, unsigned slotSize) {
    if (verb > 255) {
        MGL_WIRE_DECLINE_AT(UnknownVerb, "wire: verb %u is not known to this server", verb);
        return false;
    }
    if (handle == 0) {
        MGLOG_E("wire: record for verb %u names handle 0 (stale)", verb);
        WireDeclineTally::Count(WireDeclineSite::StaleHandle);
        return false;
    }
    if (size > slotSize) {
        MGL_WIRE_DECLINE_AT(OversizeRecord, "wire: %u-byte record over the %u-byte slot", size, slotSize);
        return false;
    }
    return true;
}

} // namespace MG_Remote::Server
