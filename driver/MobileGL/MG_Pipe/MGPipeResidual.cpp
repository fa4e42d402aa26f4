// MobileGL driver fixture - MG_Pipe/MGPipeResidual.cpp
// Compiles the residual block's layout assertions (MGPipeResidual.h) into every
// build: the size static_assert fires here first when the block changes.
#include "MG_Pipe/MGPipeResidual.h"
