// MobileGL driver fixture - MG_Remote/Protocol/mg_protocol_base.h
#pragma once

// The control protocol's revision, mixed into wireFingerprint. A hand-bumped integer: bump it with
// every protocol.fbs change a peer must agree on, and pin the schema's new sha256 for it in
// scripts/ci/protocol_revision_pins.json.
//   1  Welcome.dataNonce.
//   2  the SurfaceProgress message.
#define MOBILEGL_PROTOCOL_CONTROL_REVISION 2
