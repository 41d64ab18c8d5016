/**
 * The network-wide NAT64 as an ONOS application: {@link org.nat64fabric.app.Nat64Manager} hosts
 * core's control logic over ONOS services, {@link org.nat64fabric.app.DistributedNatStore} keeps
 * its state on ONOS's distributed primitives.
 */
package org.nat64fabric.app;
