/** The app's network configuration: the NAT64 (per app) and each switch's part in it (per device). */
package org.nat64fabric.app.config;
