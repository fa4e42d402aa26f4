// MobileGL driver fixture - MG_Backend/DirectVulkan/DirectVulkan.h
// "Magma": the GLES-on-Vulkan backend. It turns each verb into Vulkan-shaped
// commands (pipeline binds, descriptor sets, render passes) and records them.
// Its gates are mfp (draw fast path), mpm (pipeline memo) and mdt (dynamic tail).
#pragma once

#include "MG_Backend/Common/CommandRecorder.h"
#include "MG_Pipe/BackendFunctions.h"

namespace DirectVulkan {

void Install(MG_Pipe::BackendFunctionsTable& table);
void Uninstall(MG_Pipe::BackendFunctionsTable& table);
const MG_Backend::CommandRecorder& Recorder();

} // namespace DirectVulkan
