package org.nat64fabric.softswitch.ebpf;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;

/** The libbpf calls the fast path needs (JNA direct mapping; Debian's libbpf1). Errors are negative errno values. */
final class Libbpf {
    static final int XDP_FLAGS_SKB_MODE = 1 << 1;
    static final int XDP_FLAGS_DRV_MODE = 1 << 2;
    static final long BPF_ANY = 0;
    static final int BPF_XDP = 37;   // enum bpf_attach_type
    static final int BPF_TCX_INGRESS = 46;

    static {
        Native.register(Libbpf.class, library());
        libbpf_set_print(null);   // errors are reported by the caller, with the verifier's log
    }

    private Libbpf() {
    }

    private static NativeLibrary library() {
        try {
            return NativeLibrary.getInstance("bpf");
        } catch (UnsatisfiedLinkError e) {
            return NativeLibrary.getInstance("libbpf.so.1");
        }
    }

    static native Pointer libbpf_set_print(Pointer fn);

    static native int libbpf_num_possible_cpus();

    static native Pointer bpf_object__open_mem(Pointer buffer, long size, Pointer opts);

    static native int bpf_object__load(Pointer obj);

    static native void bpf_object__close(Pointer obj);

    static native Pointer bpf_object__find_map_by_name(Pointer obj, String name);

    static native int bpf_map__fd(Pointer map);

    static native int bpf_map__set_max_entries(Pointer map, int maxEntries);

    static native Pointer bpf_object__find_program_by_name(Pointer obj, String name);

    static native int bpf_program__fd(Pointer prog);

    static native int bpf_program__set_log_buf(Pointer prog, Pointer buf, long size);

    static native int bpf_program__set_log_level(Pointer prog, int level);

    static native int bpf_link_create(int progFd, int targetFd, int attachType, Pointer opts);

    static native int close(int fd);

    static native int bpf_map_update_elem(int fd, byte[] key, byte[] value, long flags);

    static native int bpf_map_delete_elem(int fd, byte[] key);

    static native int bpf_map_lookup_elem(int fd, byte[] key, byte[] value);

    static native String strerror(int errno);
}
