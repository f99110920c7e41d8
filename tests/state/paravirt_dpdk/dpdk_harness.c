/* DPDK 22.11 harness for tests/state/paravirt_dpdk/real_dpdk.rs: runs the header
 * code itself (rte_validate_tx_offload, rte_net_intel_cksum_prepare) on
 * one-segment mbufs. Build: apt-get install libdpdk-dev; gcc -O1 -march=native
 * -I/usr/include/dpdk -I/usr/include/x86_64-linux-gnu/dpdk dpdk_harness.c -o h */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_mbuf.h>
#include <rte_net.h>
/* Reads lines: flags segsz l2 l3 l4 ol2 ol3 hexframe ; prints validate result and prepared frame hex. */
int main(void) {
    char line[20000];
    static char buf[sizeof(struct rte_mbuf) + 8192 + 128];
    while (fgets(line, sizeof line, stdin)) {
        unsigned long long flags; unsigned segsz, l2, l3, l4, ol2, ol3; char hex[16384];
        if (sscanf(line, "%llx %u %u %u %u %u %u %16383s", &flags, &segsz, &l2, &l3, &l4, &ol2, &ol3, hex) != 8) continue;
        struct rte_mbuf *m = (struct rte_mbuf *)buf;
        memset(m, 0, sizeof *m);
        m->buf_addr = buf + sizeof *m;
        m->data_off = 64;
        m->buf_len = 8192;
        size_t n = strlen(hex) / 2;
        unsigned char *d = (unsigned char *)m->buf_addr + m->data_off;
        for (size_t i = 0; i < n; i++) { unsigned v; sscanf(hex + 2*i, "%2x", &v); d[i] = v; }
        m->data_len = n; m->pkt_len = n; m->nb_segs = 1;
        m->ol_flags = flags; m->tso_segsz = segsz; m->l2_len = l2; m->l3_len = l3; m->l4_len = l4;
        m->outer_l2_len = ol2; m->outer_l3_len = ol3;
        int v = rte_validate_tx_offload(m);
        int p = rte_net_intel_cksum_prepare(m);
        printf("%d %d ", v, p);
        for (size_t i = 0; i < n; i++) printf("%02x", d[i]);
        printf("\n");
    }
    return 0;
}
