package org.nat64fabric.app;

import java.util.Map;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.addr.Ipv6Prefix;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.session.TcpState;
import org.nat64fabric.core.store.MapNatStore;
import org.onlab.util.KryoNamespace;
import org.onosproject.store.serializers.KryoNamespaces;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.StorageService;

/**
 * The NAT64 state on ONOS primitives: core's {@link MapNatStore} over ConsistentMaps (Raft in an
 * ONOS cluster), whose atomic operations make a port, block or BIB entry claimed by one instance
 * refused to every other; the state outlives any instance.
 */
public final class DistributedNatStore extends MapNatStore {
    /** Serializes the core types into the cluster's maps. */
    public static final Serializer SERIALIZER = Serializer.using(KryoNamespace.newBuilder()
            .register(KryoNamespaces.API)
            .register(Ipv4Address.class, Ipv6Address.class, Ipv4Prefix.class, Ipv6Prefix.class, Protocol.class,
                    TransportAddress.class, PortBlock.class, BibEntry.class, Session.class, TcpState.class, Eam.class)
            .build("nat64fabric"));

    public DistributedNatStore(StorageService storage) {
        super(new Maps() {
            @Override
            public <V> Map<String, V> open(String name) {
                return storage.<String, V>consistentMapBuilder().withName("nat64fabric-" + name)
                        .withSerializer(SERIALIZER).build().asJavaMap();
            }
        }, true);   // other instances change the maps too: no local session index
    }
}
