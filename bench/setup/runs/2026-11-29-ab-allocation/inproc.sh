#!/usr/bin/env bash
# (the in-process bench of the new build, with its per-thread allocation, was copied into /tmp/abold for this)
for run in old-1 new-1 new-2 old-2 old-3 new-3; do
  dir=/work/main; [ "${run%%-*}" = old ] && dir=/tmp/abold
  echo "== $run $(date +%T)" >> /tmp/ab/inproc.log
  (cd $dir && java -Xmn32m -XX:MaxTenuringThreshold=0 -cp 'controller/target/test-classes:controller/target/classes:controller/target/lib/*' org.nat64fabric.controller.SetupThroughputBench durable 100 100000 3 100000 0 >> /tmp/ab/inproc.log 2>&1)
done
echo DONE >> /tmp/ab/inproc.log
