// MobileGL driver fixture - MG_Impl/GLImpl/Program/GL_Program.cpp
#include "MG_Impl/GLImpl/GLEntry.h"
#include "MG_Impl/Pipe/PipeFill.h"
#include "MG_Pipe/BackendFunctions.h"
#include "MG_State/GLState/Core.h"

using namespace MG_Impl::GLImpl;

MG_GLAPI GLuint mglCreateLinkedProgram(GLuint samplerUnitMask) {
    return MG_State::pGLContext->CreateProgramObject(samplerUnitMask);
}

MG_GLAPI void glUseProgram(GLuint program) {
    if (program != 0 && !MG_State::pGLContext->Programs().IsProgram(program)) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->UseProgram(program);
}

MG_GLAPI void glDeleteProgram(GLuint program) {
    if (program == 0) {
        return;
    }
    if (!MG_State::pGLContext->Programs().IsProgram(program)) {
        MG_State::pGLContext->RecordError(GL_INVALID_VALUE);
        return;
    }
    MG_State::pGLContext->MarkProgramForDeletion(program);
    gBackendFunctionsTable.GL.DestroyProgram(program);
}

MG_GLAPI void glUniform4f(GLint location, GLfloat v0, GLfloat v1, GLfloat v2, GLfloat v3) {
    if (location == -1) {
        return; // a location the linker dropped: silently ignored
    }
    if (MG_State::pGLContext->Programs().Current() == 0 || location < 0) {
        MG_State::pGLContext->RecordError(GL_INVALID_OPERATION);
        return;
    }
    MG_State::pGLContext->SetUniform(location, v0, v1, v2, v3);
}
