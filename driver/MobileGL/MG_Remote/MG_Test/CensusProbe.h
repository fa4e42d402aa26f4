// MobileGL driver fixture - MG_Remote/MG_Test/CensusProbe.h
// Test code may die without a family: the census skips every path with an MG_Test component.
#pragma once

#include <cstdlib>

inline void CensusProbeDie() { std::abort(); }
