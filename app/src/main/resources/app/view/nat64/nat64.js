/*
 * nat64fabric's view in ONOS's legacy GUI: the sessions, BIB and EAMT tables. Each table asks the
 * app (Nat64ViewMessageHandler) for its rows every 2 s with the filter typed above it; the app sends
 * at most 1000 matching rows and how many matched.
 */
(function () {
    'use strict';

    /* A table's controller: rows of the given table-builder tag, filtered by the app. */
    function tableController(tag) {
        return ['$scope', 'TableBuilderService', function ($scope, tbs) {
            $scope.query = { filter: '' };
            tbs.buildTable({ scope: $scope, tag: tag, query: $scope.query });
            $scope.refilter = function () {
                $scope.sortCallback($scope.sortParams);
            };
        }];
    }

    angular.module('ovNat64', [])
        .controller('OvNat64Ctrl', ['$scope', function ($scope) {
            $scope.shown = 'sessions';
            $scope.show = function (table) {
                $scope.shown = table;
            };
        }])
        .controller('OvNat64SessionCtrl', tableController('nat64Session'))
        .controller('OvNat64BibCtrl', tableController('nat64Bib'))
        .controller('OvNat64EamCtrl', tableController('nat64Eam'));
}());
