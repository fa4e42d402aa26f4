// MobileGL driver fixture - MG_Remote/Server/ServerApply.cpp
// The server role's applier for two wire records. It is the recorded link
// debt of the split: instead of calling the backend, it still calls the GL
// entry points the frontend (MG_Impl) exports, declared here by hand, so no
// include rule can see the dependency - only the link can. A server-only
// image would fail to link on exactly these two symbols, which is what
// scripts/data/link_ratchet_baseline.txt records and the link-ratchet gate
// (mgctl check, docs/link-ratchet.md) holds to only ever shrink.
//
// Built only by driver/build.sh's split step (build/link/), never into the
// monolith libMobileGL.so: that library defines no MG_Remote symbol.

#include "MG_Util/Debug/Log.h"

extern "C" void glBindBuffer(unsigned int target, unsigned int buffer);
extern "C" void glBlendColor(float red, float green, float blue, float alpha);

namespace MG_Remote::Server {

void ApplyBindBuffer(unsigned int target, unsigned int buffer) {
    MG_Util::Debug::Write(MG_Util::Debug::Level::Debug, "apply BindBuffer %u %u", target, buffer);
    glBindBuffer(target, buffer);
}

void ApplyBlendColor(float red, float green, float blue, float alpha) {
    glBlendColor(red, green, blue, alpha);
}

} // namespace MG_Remote::Server
