cd /work/main
for round in 1 2; do
for gc in g1 parallel serial; do
  case $gc in g1) f="";; parallel) f="-XX:+UseParallelGC";; serial) f="-XX:+UseSerialGC";; esac
  echo "=== $round $gc $(date +%T)"
  NAT64FABRIC_BENCH_TOPOLOGIES=edge-border NAT64FABRIC_BENCH_OUT=/tmp/gc/$gc-$round \
  NAT64FABRIC_BENCH_CONTROLLER_JVM="$f -Xlog:gc:file=/tmp/gc/$gc-$round-ctl-%p.log" NAT64FABRIC_BENCH_SWITCH_JVM="$f -Xlog:gc:file=/tmp/gc/$gc-$round-sw-%p.log" \
  bash bench/setup/run.sh > /tmp/gc/$gc-$round.log 2>&1
  grep "^edge-border" /tmp/gc/$gc-$round/results.csv | cut -d, -f2-10
done; done
