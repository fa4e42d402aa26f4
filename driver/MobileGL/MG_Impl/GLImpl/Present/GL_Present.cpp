// MobileGL driver fixture - MG_Impl/GLImpl/Present/GL_Present.cpp
// The window-system glue of the fixture: initialise a context with a backend,
// present a frame, shut down. mglSwapBuffers is an immediate publish point.
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_Impl/Pipe/PipeFill.h"
#include "MG_Pipe/BackendFunctions.h"
#include "MG_State/GLState/Core.h"
#include "MG_Impl/Init.h"

MG_GLAPI int mglInitialize(const char* backendName, GLuint width, GLuint height) {
    return MobileGL::Initialize(backendName, width, height) ? 1 : 0;
}

MG_GLAPI void mglSwapBuffers() {
    MGP_FILL(Present);
    MG_State::pGLContext->EndFrame();
    gBackendFunctionsTable.GL.Present();
}

MG_GLAPI void mglShutdown() {
    MobileGL::Shutdown();
}
