// MobileGL driver fixture - MG_Remote/Session/RemoteSession.h
// Reply handling of the split server: each death names its family, either on the funnel call
// itself or on the line that builds the message, so the census can count them.
#pragma once

#include <cstdlib>

#include "MG_Remote/Transport/WireLog.h"

namespace MG_Remote {

struct ReplySlot {
    unsigned Serial = 0;
    unsigned Size = 0;
    bool Open = false;
};

inline void CheckReply(const ReplySlot& slot, unsigned expectedSerial, unsigned maxSize)
{
    if (!slot.Open) {
        WireLogFatal("Fatal{ReplyToNoSlot, \"reply for a closed slot\"}");
    }
    if (slot.Serial != expectedSerial) {
        // The family is named on the line below the call, inside the census window.
        WireLogFatal(
            "Fatal{ReplyMismatched, \"serial does not match the request\"}");
    }
    if (slot.Size > maxSize) {
        WireLogFatal("Fatal{ReplyTooLarge, \"reply larger than its slot\"}");
    }
}

[[noreturn]] inline void DieOnProtocolCorruption(const char* where)
{
    const char* family = "Fatal{ProtocolCorruption, \"bad frame\"}";
    (void)where;
    (void)family;
    /* std::abort() in a comment is not a site: comments are blanked first. */
    std::abort();
}

} // namespace MG_Remote
