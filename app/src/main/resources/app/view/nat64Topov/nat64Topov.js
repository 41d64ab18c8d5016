/*
 * nat64fabric's topology overlay: once selected in the topology view's toolbar, the summary panel
 * shows the NAT64's state and a switch's details panel its NAT64 role and data-plane counters
 * (the app's Nat64TopoOverlay fills both panels).
 */
(function () {
    'use strict';

    angular.module('ovNat64Topov', [])
        .run(['TopoOverlayService', function (tov) {
            tov.register({
                overlayId: 'nat64-overlay',
                glyphId: 'switch',
                tooltip: 'NAT64: switch roles and data-plane counters',
                // The topology view calls both when the overlay is picked or left; the panels come
                // from the server, so the client has nothing to set up or tear down.
                activate: function () {},
                deactivate: function () {}
            });
        }]);
}());
