/** The REST API at /onos/nat64fabric (docs/rest.md), with its swagger page in ONOS's API docs. */
package org.nat64fabric.app.rest;
