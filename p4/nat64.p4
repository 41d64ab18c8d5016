/* nat64fabric: the NAT64 / SIIT-EAM pipeline for v1model (BMv2, Stratum-BMv2, softswitch).
 * The parts are in include/, one concern per file; see README.md for every table. The NetFPGA
 * SUME variant, hw/netfpga/nat64_sume.p4, shares all but the v1model files. */
#include <core.p4>
#include <v1model.p4>

#include "include/v1model_arch.p4"
#include "include/defines.p4"
#include "include/headers.p4"
#include "include/parser.p4"
#include "include/checksums.p4"
#include "include/control.p4"

V1Switch(Nat64Parser(), Nat64VerifyChecksum(), Nat64Ingress(), Nat64Egress(),
         Nat64ComputeChecksum(), Nat64Deparser()) main;
