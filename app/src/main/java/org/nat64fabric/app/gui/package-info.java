/** The app's pages in ONOS's (legacy) web GUI: the NAT64 tables view and the topology overlay. */
package org.nat64fabric.app.gui;
