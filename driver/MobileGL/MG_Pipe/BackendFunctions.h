// MobileGL driver fixture - MG_Pipe/BackendFunctions.h
// The backend dispatch table. GL entry points reach a backend only through
// gBackendFunctionsTable.GL.<Name>(...); a backend installs its functions at
// MobileGL::Initialize(). Only MG_Pipe value types cross this seam.
#pragma once

#include "MG_Pipe/MGPipeValueTypes.h"

namespace MG_Pipe {

struct GLBackendFunctions {
    void (*DrawArrays)(GLenum mode, GLint first, GLsizei count) = nullptr;
    void (*DrawElements)(GLenum mode, GLsizei count, GLenum type, Uint64 offset) = nullptr;
    void (*Clear)(GLbitfield mask) = nullptr;
    void (*ReadPixels)(GLint x, GLint y, GLsizei width, GLsizei height, void* out, Uint64 bytes) = nullptr;
    void (*CreateTextureStorage)(GLuint texture, GLenum target, GLsizei width, GLsizei height, GLenum format) = nullptr;
    void (*UploadTexture)(GLuint texture, GLint level, Rect region, const void* texels, Uint64 bytes) = nullptr;
    void (*DestroyTexture)(GLuint texture) = nullptr;
    void (*CreateBufferStorage)(GLuint buffer, Uint64 size, GLenum usage) = nullptr;
    void (*UploadBuffer)(GLuint buffer, Uint64 offset, const void* data, Uint64 size) = nullptr;
    void (*DestroyBuffer)(GLuint buffer) = nullptr;
    void (*DestroyProgram)(GLuint program) = nullptr;
    void (*Flush)() = nullptr;
    void (*Finish)() = nullptr;
    void (*Present)() = nullptr;
};

struct BackendFunctionsTable {
    const char* Name = "none";
    GLBackendFunctions GL;
};

} // namespace MG_Pipe

extern MG_Pipe::BackendFunctionsTable gBackendFunctionsTable;
