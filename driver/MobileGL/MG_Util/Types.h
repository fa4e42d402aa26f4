// MobileGL driver fixture - MG_Util/Types.h
// Fixed-width aliases shared by every layer. Kept dependency-free so that the
// pure MG_Pipe headers can include it without widening their include closure.
#pragma once

#include <cstddef>
#include <cstdint>

using Uint8 = std::uint8_t;
using Uint16 = std::uint16_t;
using Uint32 = std::uint32_t;
using Uint64 = std::uint64_t;
using Int32 = std::int32_t;
using Int64 = std::int64_t;
using Float32 = float;

