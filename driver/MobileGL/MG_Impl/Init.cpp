// MobileGL driver fixture - MG_Impl/Init.cpp
#include "MG_Impl/Init.h"

#include <cstring>

#include "MG_Backend/DirectGLES/DirectGLES.h"
#include "MG_Backend/DirectVulkan/DirectVulkan.h"
#include "MG_Impl/Pipe/PipeFill.h"
#include "MG_Pipe/BackendFunctions.h"
#include "MG_State/GLState/Core.h"
#include "MG_Util/Debug/Log.h"
#include "MG_Util/Metrics/PipeStats.h"

namespace MobileGL {
namespace {

enum class BackendKind { None, DirectGLES, DirectVulkan };

BackendKind g_backend = BackendKind::None;

} // namespace

bool Initialize(const char* backendName, Uint32 width, Uint32 height) {
    if (MG_State::pGLContext != nullptr) {
        MGLOG_E("MobileGL: Initialize called twice");
        return false;
    }
    const char* name = backendName != nullptr ? backendName : "DirectGLES";
    if (std::strcmp(name, "DirectGLES") == 0) {
        g_backend = BackendKind::DirectGLES;
        DirectGLES::Install(gBackendFunctionsTable);
    } else if (std::strcmp(name, "DirectVulkan") == 0) {
        g_backend = BackendKind::DirectVulkan;
        DirectVulkan::Install(gBackendFunctionsTable);
    } else {
        MGLOG_E("MobileGL: unknown backend '%s' (DirectGLES|DirectVulkan)", name);
        return false;
    }
    MG_Util::PipeStats::Init();
    MG_State::pGLContext = new MG_State::GLContext(width, height);
    MG_Impl::Pipe::ResetFill();
#if MOBILEGL_PIPE_PUSH
    MGLOG_I("MobileGL: initialized, backend %s, %ux%u, pipe mode push", name, width, height);
#else
    MGLOG_I("MobileGL: initialized, backend %s, %ux%u, pipe mode pull", name, width, height);
#endif
    return true;
}

void Shutdown() {
    if (MG_State::pGLContext == nullptr) {
        return;
    }
    MG_Impl::Pipe::ReportVerifySummary();
    MG_Util::PipeStats::Shutdown();
    if (g_backend == BackendKind::DirectGLES) {
        DirectGLES::Uninstall(gBackendFunctionsTable);
    } else if (g_backend == BackendKind::DirectVulkan) {
        DirectVulkan::Uninstall(gBackendFunctionsTable);
    }
    g_backend = BackendKind::None;
    delete MG_State::pGLContext;
    MG_State::pGLContext = nullptr;
    MGLOG_I("MobileGL: shut down");
}

} // namespace MobileGL
