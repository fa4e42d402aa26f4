// MobileGL driver fixture - MG_Pipe/BackendFunctions.cpp
#include "MG_Pipe/BackendFunctions.h"

MG_Pipe::BackendFunctionsTable gBackendFunctionsTable;
