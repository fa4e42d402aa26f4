// MobileGL driver fixture - MG_Pipe/PipeMutation.h
// MGP_NOTE_MUTATION(field): a state-layer body that changes something a backend
// can observe, but not through a GLContext method call, says so here. The
// dirty-surface scanner attributes the note to the enclosing function, so that
// function needs a row in MG_Pipe/DirtySurface.def like any other mutator.
// The macro compiles to nothing; it exists for the scanner and for readers.
// This header must stay pure (include-closure probe "mutation-header").
#pragma once

#define MGP_NOTE_MUTATION(field) static_cast<void>(sizeof(field))
