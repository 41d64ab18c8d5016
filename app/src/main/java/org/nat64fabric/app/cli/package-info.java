/** ONOS CLI commands nat64-* (docs/cli.md) and their completers. */
package org.nat64fabric.app.cli;
