/*
 * The setup bench's packet sender and receiver, in C so that the load generator costs a few
 * percent of a core at 30 000 packets/s instead of the quarter of a core Python took from the
 * system it measures.
 *
 *   loadgen send RATE IFACE...   reads frames from stdin, each as
 *                                [u64 flow][u8 interface index][u16 length][frame], big-endian,
 *                                sends them on raw sockets at RATE frames/s (paced per
 *                                millisecond, sendmmsg per interface) and writes to stdout one
 *                                record per frame: [u64 flow][u64 CLOCK_REALTIME ns after sending].
 *   loadgen receive IFACE SERVER4
 *                                writes [u64 flow][u64 kernel receive time, CLOCK_REALTIME ns]
 *                                to stdout for every IPv4 UDP frame to SERVER4 whose payload
 *                                starts with the flow number; runs until killed (SIGTERM).
 *
 * Both sides stamp CLOCK_REALTIME, so delays are differences of one clock.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_FRAME 2048
#define BATCH 64

static void die(const char *what) {
    perror(what);
    exit(1);
}

static uint64_t now_ns(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static uint64_t be64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

static void put_be64(uint8_t *p, uint64_t v) {
    for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (uint8_t) v;
}

static int raw_socket(const char *iface, int protocol) {
    int s = socket(AF_PACKET, SOCK_RAW, protocol);
    if (s < 0) die("socket");
    struct sockaddr_ll a = {.sll_family = AF_PACKET, .sll_protocol = (uint16_t) protocol,
                            .sll_ifindex = (int) if_nametoindex(iface)};
    if (a.sll_ifindex == 0) die(iface);
    if (bind(s, (struct sockaddr *) &a, sizeof a) < 0) die("bind");
    return s;
}

static int read_full(uint8_t *buf, size_t n) {
    return fread(buf, 1, n, stdin) == n;
}

struct frame {
    uint64_t flow;
    uint8_t iface;
    uint16_t length;
    uint8_t *data;
};

static int send_frames(double rate, int ifaces, char **names) {
    int socks[ifaces];
    for (int i = 0; i < ifaces; i++) socks[i] = raw_socket(names[i], 0);

    size_t count = 0, capacity = 1024;
    struct frame *frames = malloc(capacity * sizeof *frames);
    uint8_t head[11];
    while (read_full(head, sizeof head)) {
        if (count == capacity) frames = realloc(frames, (capacity *= 2) * sizeof *frames);
        struct frame *f = &frames[count];
        f->flow = be64(head);
        f->iface = head[8];
        f->length = (uint16_t) (head[9] << 8 | head[10]);
        if (f->iface >= ifaces || f->length > MAX_FRAME) {
            fprintf(stderr, "loadgen: frame %zu: interface %d or length %d out of range\n", count, f->iface,
                    f->length);
            return 1;
        }
        f->data = malloc(f->length);
        if (!read_full(f->data, f->length)) {
            fprintf(stderr, "loadgen: frame %zu cut short\n", count);
            return 1;
        }
        count++;
    }

    uint8_t *out = malloc(count * 16 + 1);
    struct mmsghdr msgs[BATCH];
    struct iovec iovs[BATCH];
    size_t next = 0;
    uint64_t start = now_ns(CLOCK_MONOTONIC);
    while (next < count) {
        // Every frame due by now goes; then sleep to the next millisecond.
        uint64_t elapsed = now_ns(CLOCK_MONOTONIC) - start;
        size_t due = (size_t) ((double) elapsed * rate / 1e9) + 1;
        if (due > count) due = count;
        while (next < due) {
            // one sendmmsg per run of frames on the same interface
            int iface = frames[next].iface, n = 0;
            while (next + n < due && n < BATCH && frames[next + n].iface == iface) {
                iovs[n] = (struct iovec){frames[next + n].data, frames[next + n].length};
                msgs[n] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iovs[n], .msg_iovlen = 1}};
                n++;
            }
            int sent = sendmmsg(socks[iface], msgs, (unsigned) n, 0);
            if (sent < 0) {
                if (errno == ENOBUFS || errno == EAGAIN) continue;   // the veth queue is full: retry
                die("sendmmsg");
            }
            uint64_t t = now_ns(CLOCK_REALTIME);
            for (int i = 0; i < sent; i++, next++) {
                put_be64(out + next * 16, frames[next].flow);
                put_be64(out + next * 16 + 8, t);
            }
        }
        if (next < count) {
            // at most one wake-up per millisecond: at high rates a few frames go per sendmmsg
            uint64_t wake = start + (uint64_t) ((double) (next) * 1e9 / rate), soonest = now_ns(CLOCK_MONOTONIC) + 1000000;
            if (wake < soonest) wake = soonest;
            struct timespec t = {(time_t) (wake / 1000000000u), (long) (wake % 1000000000u)};
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
        }
    }
    fwrite(out, 16, count, stdout);
    return fflush(stdout) == 0 ? 0 : 1;
}

static volatile sig_atomic_t stopping;

static void stop(int sig) {
    (void) sig;
    stopping = 1;
}

static int receive_frames(const char *iface, const char *server) {
    struct in_addr server4;
    if (inet_pton(AF_INET, server, &server4) != 1) {
        fprintf(stderr, "loadgen: not an IPv4 address: %s\n", server);
        return 2;
    }
    int s = raw_socket(iface, htons(ETH_P_ALL));
    int on = 1;
    if (setsockopt(s, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) < 0) die("SO_TIMESTAMPNS");
    struct timeval timeout = {0, 200000};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    struct sigaction sa = {.sa_handler = stop};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    static uint8_t bufs[BATCH][MAX_FRAME];
    static uint8_t controls[BATCH][CMSG_SPACE(sizeof(struct timespec))];
    struct mmsghdr msgs[BATCH];
    struct iovec iovs[BATCH];
    uint8_t record[16];
    while (!stopping) {
        for (int i = 0; i < BATCH; i++) {
            iovs[i] = (struct iovec){bufs[i], MAX_FRAME};
            msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iovs[i], .msg_iovlen = 1,
                                                   .msg_control = controls[i],
                                                   .msg_controllen = sizeof controls[i]}};
        }
        int n = recvmmsg(s, msgs, BATCH, MSG_WAITFORONE, NULL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            die("recvmmsg");
        }
        for (int i = 0; i < n; i++) {
            const uint8_t *f = bufs[i];
            unsigned len = msgs[i].msg_len;
            if (len < 14 + 20 + 8 + 8 || f[12] != 0x08 || f[13] != 0x00 || f[14 + 9] != 17) continue;
            unsigned ihl = (f[14] & 0x0f) * 4u;
            if (memcmp(f + 14 + 16, &server4, 4) != 0 || len < 14 + ihl + 8 + 8) continue;
            uint64_t t = 0;
            for (struct cmsghdr *c = CMSG_FIRSTHDR(&msgs[i].msg_hdr); c; c = CMSG_NXTHDR(&msgs[i].msg_hdr, c)) {
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS) {
                    struct timespec ts;
                    memcpy(&ts, CMSG_DATA(c), sizeof ts);
                    t = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
                }
            }
            if (t == 0) t = now_ns(CLOCK_REALTIME);
            memcpy(record, f + 14 + ihl + 8, 8);
            put_be64(record + 8, t);
            fwrite(record, sizeof record, 1, stdout);
        }
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "send") == 0) {
        double rate = atof(argv[2]);
        if (rate <= 0) {
            fprintf(stderr, "loadgen: the rate must be positive: %s\n", argv[2]);
            return 2;
        }
        return send_frames(rate, argc - 3, argv + 3);
    }
    if (argc == 4 && strcmp(argv[1], "receive") == 0) return receive_frames(argv[2], argv[3]);
    fprintf(stderr, "usage: loadgen send RATE IFACE... < frames | loadgen receive IFACE SERVER4 > records\n");
    return 2;
}
