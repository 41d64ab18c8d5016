/* The NAT64 deparser's emits, the same on every architecture: included inside each
 * architecture's deparser (its packet_out is `packet`, its headers `hdr`). No include guard: it
 * is a control's body, not declarations. */
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.arp);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.ipv4_options);
        packet.emit(hdr.ipv6);
        packet.emit(hdr.ipv6_ext);
        packet.emit(hdr.ipv6_frag);
        packet.emit(hdr.tcp);
        packet.emit(hdr.udp);
        packet.emit(hdr.icmp);
        packet.emit(hdr.ndp);
        packet.emit(hdr.ndp_option);
        packet.emit(hdr.inner_ipv4);
        packet.emit(hdr.inner_ipv4_options);    /* quoted options: of an error routed as it came, or v1model's own errors */
        packet.emit(hdr.inner_ipv6);
        packet.emit(hdr.inner_ext);
        packet.emit(hdr.inner_frag);
        packet.emit(hdr.inner_l4);
        packet.emit(hdr.inner_tcp_tail);
        packet.emit(hdr.quoted_chunks);
        packet.emit(hdr.quoted_words);
        packet.emit(hdr.icmp_pad4);
        packet.emit(hdr.icmp_pad8);
        packet.emit(hdr.icmp_pad16);
        packet.emit(hdr.icmp_pad32);
        packet.emit(hdr.icmp_pad64);
