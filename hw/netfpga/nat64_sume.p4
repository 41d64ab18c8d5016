/* nat64fabric: the NAT64 / SIIT-EAM pipeline for the NetFPGA SUME (SimpleSumeSwitch, Xilinx SDNet).
 * It shares p4/include with the v1model pipeline (p4/nat64.p4): headers, constants, the parser's
 * states, translation, header rewriting, the switch's own host functions, the deparser. What is
 * the SUME's own is in include/: its declarations (sume_arch.p4) and its parser start, pipe and
 * deparser (sume_pipe.p4). README.md lists what the card leaves to the controller. */
#include <core.p4>
#include <sume_switch.p4>

#include "include/sume_arch.p4"
#include "../../p4/include/defines.p4"
#include "../../p4/include/headers.p4"
#include "../../p4/include/checksums.p4"
#include "include/sume_pipe.p4"

SimpleSumeSwitch(Nat64SumeParser(), Nat64Ingress(), Nat64SumeDeparser()) main;
