// MobileGL driver fixture - MG_Pipe/PipeVerbs.h
// Verb and verb-class enums generated from FillPoints.def.
#pragma once

#include "MG_Pipe/FillPoints.def"
#include "MG_Util/Types.h"

namespace MG_Pipe {

enum class VerbClass : Uint8 { kVerbRaster, kVerbClear, kVerbReadback, kVerbTransfer, kVerbFrame };

enum class Verb : Uint8 {
#define MGP_VERB_ENUM(name, cls) name,
    MGP_FILL_POINT_LIST(MGP_VERB_ENUM)
#undef MGP_VERB_ENUM
        Count
};

constexpr Uint32 kVerbCount = static_cast<Uint32>(Verb::Count);

inline VerbClass ClassOf(Verb verb) {
    switch (verb) {
#define MGP_VERB_CLASS(name, cls)                                                                  \
    case Verb::name:                                                                               \
        return VerbClass::cls;
        MGP_FILL_POINT_LIST(MGP_VERB_CLASS)
#undef MGP_VERB_CLASS
    case Verb::Count:
        break;
    }
    return VerbClass::kVerbFrame;
}

inline const char* VerbName(Verb verb) {
    switch (verb) {
#define MGP_VERB_NAME(name, cls)                                                                   \
    case Verb::name:                                                                               \
        return #name;
        MGP_FILL_POINT_LIST(MGP_VERB_NAME)
#undef MGP_VERB_NAME
    case Verb::Count:
        break;
    }
    return "?";
}

} // namespace MG_Pipe
